import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { DECOMMISSION_BODY } from './support/fixtures';
import { createTestDatabase } from './support/databases';
import { TcpProxy } from './support/tcp-proxy';
import { startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const UNAVAILABLE = { status: 'error', error_code: 'SERVICE_UNAVAILABLE' };

describe('PostgreSQL unreachable and back', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let officer: string;

  before(async () => {
    const database = await createTestDatabase('postgres', tmpdir());
    const url = new URL(database.url);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    t = await startTestApp({ engine: 'postgres', database: { url: url.toString(), drop: database.drop } });
    officer = t.bearer('admiral', 7);
  });
  after(async () => {
    await t.close();
    await proxy.cut();
  });

  it('is ready while the database answers', async () => {
    await t.http().get('/health/ready').expect(200, { status: 'success' });
    await t.http().get('/v1/fleet/star-destroyers').set('Authorization', officer).expect(200);
  });

  it('fails readiness with 503 and the error body while the database is unreachable', async () => {
    await proxy.cut();
    const res = await t.http().get('/health/ready').expect(503);
    assert.deepEqual(res.body, { status: 'error', message: 'The database is unreachable', error_code: 'SERVICE_UNAVAILABLE' });
  });

  it('answers requests in that window with 503 SERVICE_UNAVAILABLE, never a 500 or a crash', async () => {
    for (const request of [
      () => t.http().get('/v1/fleet/star-destroyers').set('Authorization', officer),
      () => t.http().get('/v1/assets/TIE-0001').set('Authorization', officer),
      () => t.http().delete('/v1/assets/TIE-0001').set('Authorization', officer).send(DECOMMISSION_BODY),
      () => t.http().get('/v1/fleet/star-destroyers'),
      () => t.http().delete('/v1/assets/TIE-0001').set('Authorization', t.bearer('cadet', 1)).send(DECOMMISSION_BODY),
    ]) {
      const res = await request().expect(503);
      assert.deepEqual({ status: res.body.status, error_code: res.body.error_code }, UNAVAILABLE);
      assert.doesNotMatch(res.text, /ECONNREFUSED|5432|postgres|\n\s+at /i);
    }
    await t.http().get('/health/live').expect(200);
  });

  it('recovers by itself once the database is back, with nothing half-written', async () => {
    await proxy.restore();
    await waitUntil(async () => (await t.http().get('/health/ready')).status === 200, 'not ready within 10 s of the database coming back');
    await t.http().get('/v1/fleet/star-destroyers').set('Authorization', officer).expect(200);
    const asset = await t.http().get('/v1/assets/TIE-0001').set('Authorization', officer).expect(200);
    assert.equal(asset.body.data.status, 'active', 'the DELETE during the outage changed nothing');
    await t.http().delete('/v1/assets/TIE-0001').set('Authorization', officer).send(DECOMMISSION_BODY).expect(200);
  });
});
