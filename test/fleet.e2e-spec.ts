import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Response } from 'supertest';
import { SECTORS } from '../src/database';
import { FIXTURE_RECORDS, VESSEL_COUNT, VESSELS_PER_SECTOR } from './support/fixtures';
import { describeEachDatabase } from './support/databases';
import { startTestApp, type TestApp } from './support/test-app';

const PATH = '/v1/fleet/star-destroyers';
const VESSEL_KEYS = ['class', 'commander', 'crew', 'id', 'length', 'name', 'sector', 'status'];
const ALL_IDS = FIXTURE_RECORDS.vessels.map((v) => v.id).sort();
const idsOf = (sector: string) =>
  FIXTURE_RECORDS.vessels
    .filter((v) => v.sector === sector)
    .map((v) => v.id)
    .sort();
const vessels = (res: Response) => res.body.data.vessels as { id: string; sector: string }[];
const vesselIds = (res: Response) => vessels(res).map((v) => v.id);
const sectorsOf = (res: Response) => vessels(res).map((v) => v.sector);

describeEachDatabase('GET /v1/fleet/star-destroyers', (engine) => {
  let t: TestApp;
  let token: string;

  const list = (query: string, expected: number) => t.http().get(`${PATH}${query}`).set('Authorization', token).expect(expected);

  const rejects = async (query: string, field: string) => {
    const res = await list(query, 400);
    assert.deepEqual(Object.keys(res.body).sort(), ['error_code', 'message', 'status']);
    assert.equal(res.body.status, 'error');
    assert.equal(res.body.error_code, 'VALIDATION_ERROR');
    assert.match(res.body.message, new RegExp(field), `${query}: message names ${field}: ${res.body.message}`);
  };

  before(async () => {
    t = await startTestApp({ engine });
    token = t.bearer('trooper-0', 0);
  });
  after(() => t.close());

  it('answers a clearance-0 token with 200 and the envelope {status, data:{vessels, total_count, page, per_page}}', async () => {
    const res = await list('', 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'status']);
    assert.equal(res.body.status, 'success');
    assert.deepEqual(Object.keys(res.body.data).sort(), ['page', 'per_page', 'total_count', 'vessels']);
    assert.ok(Array.isArray(res.body.data.vessels));
  });

  it('returns each vessel with exactly id, name, class, length, crew (integer), commander, sector, status', async () => {
    const res = await list('?limit=100', 200);
    assert.equal(res.body.data.vessels.length, VESSEL_COUNT);
    for (const vessel of res.body.data.vessels) {
      assert.deepEqual(Object.keys(vessel).sort(), VESSEL_KEYS);
      assert.ok(Number.isInteger(vessel.crew), `crew is an integer: ${vessel.crew}`);
    }
    const first = FIXTURE_RECORDS.vessels.find((v) => v.id === 'SD-000');
    assert.deepEqual(res.body.data.vessels[0], first);
  });

  it('orders vessels by id ascending', async () => {
    const res = await list('?limit=100', 200);
    assert.deepEqual(vesselIds(res), ALL_IDS);
  });

  it('defaults to page 1 of 10 vessels, with total_count counting every vessel', async () => {
    const res = await list('', 200);
    assert.equal(res.body.data.vessels.length, 10);
    assert.equal(res.body.data.per_page, 10);
    assert.equal(res.body.data.page, 1);
    assert.equal(res.body.data.total_count, VESSEL_COUNT);
    assert.deepEqual(vesselIds(res), ALL_IDS.slice(0, 10));
  });

  it('accepts limit 1 and limit 100, and reports the effective limit as per_page', async () => {
    const one = await list('?limit=1', 200);
    assert.deepEqual(vesselIds(one), [ALL_IDS[0]]);
    assert.equal(one.body.data.per_page, 1);
    assert.equal(one.body.data.total_count, VESSEL_COUNT);

    const hundred = await list('?limit=100', 200);
    assert.equal(hundred.body.data.vessels.length, VESSEL_COUNT);
    assert.equal(hundred.body.data.per_page, 100);
    assert.equal(hundred.body.data.total_count, VESSEL_COUNT);
  });

  it('refuses a limit that is not an integer from 1 to 100 with 400 VALIDATION_ERROR naming limit', async () => {
    for (const limit of ['0', '101', '-1', '1.5', 'abc', '']) {
      await rejects(`?limit=${limit}`, 'limit');
    }
  });

  it('returns the requested page, and the second page continues the first', async () => {
    const res = await list('?limit=10&page=2', 200);
    assert.equal(res.body.data.page, 2);
    assert.equal(res.body.data.per_page, 10);
    assert.equal(res.body.data.total_count, VESSEL_COUNT);
    assert.deepEqual(vesselIds(res), ALL_IDS.slice(10, 20));
  });

  it('refuses a page that is not an integer of at least 1 with 400 VALIDATION_ERROR naming page', async () => {
    for (const page of ['0', 'x', '-1', '1.5']) {
      await rejects(`?page=${page}`, 'page');
    }
  });

  it('answers a page past the end with 200, an empty list and the full total_count', async () => {
    const res = await list('?page=3', 200);
    assert.deepEqual(res.body.data, { vessels: [], total_count: VESSEL_COUNT, page: 3, per_page: 10 });
  });

  it('filters by each sector: only that sector\'s vessels, in id order, with the sector\'s total_count', async () => {
    for (const sector of SECTORS) {
      const res = await list(`?sector=${encodeURIComponent(sector)}`, 200);
      assert.equal(res.body.data.total_count, VESSELS_PER_SECTOR[sector], sector);
      assert.ok(sectorsOf(res).every((s) => s === sector), sector);
      assert.deepEqual(vesselIds(res), idsOf(sector).slice(0, 10), sector);
    }
  });

  it('pages through Outer Rim with limit 5 as 5, 5 and 3 vessels, without overlap and in id order', async () => {
    const pages: string[][] = [];
    for (const page of [1, 2, 3, 4]) {
      const res = await list(`?sector=Outer%20Rim&limit=5&page=${page}`, 200);
      assert.equal(res.body.data.total_count, VESSELS_PER_SECTOR['Outer Rim']);
      assert.equal(res.body.data.page, page);
      assert.equal(res.body.data.per_page, 5);
      assert.ok(sectorsOf(res).every((s) => s === 'Outer Rim'));
      pages.push(vesselIds(res));
    }
    assert.deepEqual(pages.map((ids) => ids.length), [5, 5, 3, 0]);
    const seen = pages.flat();
    assert.equal(new Set(seen).size, seen.length, 'no vessel appears on two pages');
    assert.deepEqual(seen, idsOf('Outer Rim'));
  });

  it('combines sector, limit and page', async () => {
    const res = await list('?sector=Mid%20Rim&limit=3&page=2', 200);
    assert.deepEqual(res.body.data, {
      vessels: FIXTURE_RECORDS.vessels.filter((v) => v.id === idsOf('Mid Rim')[3]),
      total_count: VESSELS_PER_SECTOR['Mid Rim'],
      page: 2,
      per_page: 3,
    });
  });

  it('refuses an unknown sector with 400 VALIDATION_ERROR naming sector', async () => {
    for (const sector of ['Unknown%20Regions', 'outer%20rim', 'Outer+Rim+', '']) {
      await rejects(`?sector=${sector}`, 'sector');
    }
  });

  it('refuses an unknown query parameter with 400 VALIDATION_ERROR naming it', async () => {
    await rejects('?color=red', 'color');
    await rejects('?sector=Outer%20Rim&per_page=5', 'per_page');
  });

  it(
    'refuses offset, which is not a query parameter, with 400 VALIDATION_ERROR rather than 500',
    async () => {
      await rejects('?offset=5', 'offset');
    },
  );

  it('is served under /api/v1 with an identical body', async () => {
    for (const query of ['', '?sector=Outer%20Rim&limit=5&page=2', '?limit=0']) {
      const direct = await t.http().get(`${PATH}${query}`).set('Authorization', token);
      const alias = await t.http().get(`/api${PATH}${query}`).set('Authorization', token);
      assert.equal(alias.status, direct.status, query);
      assert.deepEqual(alias.body, direct.body, query);
    }
  });

  it('refuses a request without a valid token with 401 UNAUTHENTICATED', async () => {
    const missing = await t.http().get(PATH).expect(401);
    assert.equal(missing.body.error_code, 'UNAUTHENTICATED');
    const invalid = await t.http().get(PATH).set('Authorization', 'Bearer not.a.token').expect(401);
    assert.equal(invalid.body.error_code, 'UNAUTHENTICATED');
  });
});
