import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Response } from 'supertest';
import { RecordImportService } from '../src/import/record-import.service';
import { describeEachDatabase } from './support/databases';
import { FIXTURE_RECORDS, VESSELS_PER_SECTOR, vesselRecord } from './support/fixtures';
import { expectErrorBody, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const STRONG_ETAG = /^"[\x21\x23-\x7e]+"$/;

describeEachDatabase('fleet listing: ETag, 304 and the data version', (engine) => {
  let t: TestApp;
  let token: string;

  const list = (query: string) => listFleet(t, query, token).expect(200);
  const listIfNoneMatch = (query: string, ifNoneMatch: string) => listFleet(t, query, token).set('If-None-Match', ifNoneMatch);
  const etagOf = async (query: string) => (await list(query)).headers.etag;
  const importVessels = (app: TestApp, vessels: unknown[]) => app.app.get(RecordImportService).import({ vessels });

  before(async () => {
    t = await startTestApp({ engine });
    token = t.bearer('trooper-0', 0);
  });
  after(() => t.close());

  it('sends a strong ETag, the same for identical requests, and Cache-Control: private, no-cache', async () => {
    const first = await list('sector=Outer%20Rim&limit=5');
    const second = await list('sector=Outer%20Rim&limit=5');
    assert.match(first.headers.etag, STRONG_ETAG);
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    assert.deepEqual(second.body, first.body);
  });

  it('gives each page its own ETag, and the same to a page asked for with or without its defaults', async () => {
    const tags = await Promise.all(['', 'limit=5', 'page=2', 'sector=Mid%20Rim', 'after=SD-000'].map(etagOf));
    assert.equal(new Set(tags).size, tags.length);
    assert.equal(await etagOf('limit=10&page=1'), tags[0]);
  });

  it('answers a matching If-None-Match with 304, no body, the ETag, the request id and the security headers', async () => {
    const etag = await etagOf('limit=3');
    const res = await listIfNoneMatch('limit=3', etag).set('X-Request-Id', 'revalidate-1').expect(304);
    assert.equal(res.text, '');
    assert.equal(res.headers.etag, etag);
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    assert.equal(res.headers['x-request-id'], 'revalidate-1');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-type'], undefined);
  });

  it('compares If-None-Match weakly, reads comma lists and *, and answers 200 to a stale or foreign tag', async () => {
    const etag = await etagOf('limit=4');
    for (const field of [`W/${etag}`, `"other", ${etag}`, `"a,b",W/${etag}`, '*']) {
      await listIfNoneMatch('limit=4', field).expect(304);
    }
    for (const field of ['"other"', etag.slice(1, -1), `${etag.slice(0, -1)}x"`, `W/"x", "y"`]) {
      const res = await listIfNoneMatch('limit=4', field).expect(200);
      assert.equal(res.headers.etag, etag);
      assert.equal(res.body.data.vessels.length, 4);
    }
  });

  it('checks the token before any 304, and the query too', async () => {
    const etag = await etagOf('');
    expectErrorBody(await listFleet(t, '').set('If-None-Match', etag), 401, 'UNAUTHENTICATED');
    expectErrorBody(await listFleet(t, '', 'Bearer not-a-token').set('If-None-Match', '*'), 401, 'UNAUTHENTICATED');
    expectErrorBody(await listFleet(t, 'limit=0', token).set('If-None-Match', '*'), 400, 'VALIDATION_ERROR', 'limit');
  });

  it('refuses an If-None-Match over 1024 characters, the bound the API documents, with 400 naming it, and reads one of 1024', async () => {
    const etag = await etagOf('limit=2');
    const field = `${'"x", '.repeat(199)}${etag}`;
    assert.equal(field.length, 1024);
    await listIfNoneMatch('limit=2', field).expect(304);
    expectErrorBody(await listIfNoneMatch('limit=2', `"y",${field}`), 400, 'VALIDATION_ERROR', 'If-None-Match');
  });

  it('changes every ETag after an import that changes a vessel, and serves the new data', async () => {
    const [pageTag, sectorTag] = [await etagOf('limit=1'), await etagOf('sector=Core%20Worlds')];
    await importVessels(t, [{ ...FIXTURE_RECORDS.vessels[0], name: 'Renamed' }]);

    const res = await listIfNoneMatch('limit=1', pageTag).expect(200);
    assert.notEqual(res.headers.etag, pageTag);
    assert.equal(res.body.data.vessels[0].name, 'Renamed');
    await listIfNoneMatch('sector=Core%20Worlds', sectorTag).expect(200);
    await listIfNoneMatch('limit=1', res.headers.etag).expect(304);
  });

  it('keeps total_count exact through an upsert that adds a vessel and one that moves a vessel to another sector', async () => {
    const totals = async () => {
      const all = await list('');
      const outer = await list('sector=Outer%20Rim');
      const core = await list('sector=Core%20Worlds');
      return [all, outer, core].map((res: Response) => res.body.data.total_count);
    };
    const [all, outer, core] = await totals();
    assert.equal(outer, VESSELS_PER_SECTOR['Outer Rim']);

    await importVessels(t, [vesselRecord('NEW-1', { sector: 'Core Worlds' })]);
    assert.deepEqual(await totals(), [all + 1, outer, core + 1]);

    const moved = FIXTURE_RECORDS.vessels.find((vessel) => vessel.sector === 'Outer Rim');
    await importVessels(t, [{ ...moved, sector: 'Core Worlds' }]);
    assert.deepEqual(await totals(), [all + 1, outer - 1, core + 2]);
  });

  it('sees a write by a second instance on the same database at once, on its next request', async () => {
    const location = t.config.database;
    const second = await startTestApp({
      engine,
      database: { url: location.dialect === 'sqlite' ? `sqlite:${location.path}` : location.url, drop: async () => {} },
      records: false,
    });
    try {
      const before = await list('sector=Inner%20Rim');
      await importVessels(second, [vesselRecord('NEW-2', { sector: 'Inner Rim' })]);

      const res = await listIfNoneMatch('sector=Inner%20Rim', before.headers.etag).expect(200);
      assert.equal(res.body.data.total_count, before.body.data.total_count + 1);
      assert.ok(res.body.data.vessels.some((vessel: { id: string }) => vessel.id === 'NEW-2'));
    } finally {
      await second.close();
    }
  });
});
