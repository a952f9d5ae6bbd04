import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { blockedBy, describeEachDatabase, holdAssetRow } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { auditEventsOf, decideRequest, decommission, expectErrorBody, recommission } from './support/http';
import { holdSqliteWriteLock, type RunningServer } from './support/processes';
import { listenOnLoopback, startInstanceBeside, startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const METRICS_TOKEN = 'metrics-token-of-the-idempotency-suite';

describeEachDatabase('Idempotency-Key on the decisions', (engine) => {
  let t: TestApp;
  let admiral: string;

  const statusOf = async (assetId: string) => (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;
  const eventsOf = async (assetId: string) => (await auditEventsOf(t, assetId)).map((event) => [event.action, event.outcome, event.reason]);
  const keyRow = (key: string) => t.db.selectFrom('idempotency_keys').selectAll().where('idempotency_key', '=', key).executeTakeFirst();
  let assets = 0;
  /** An active asset of its own, for a test that needs one. */
  const newAsset = async () => {
    assets += 1;
    const assetId = `IDM-${String(assets).padStart(4, '0')}`;
    await t.db.insertInto('assets').values({ asset_id: assetId, asset_type: 'vehicle', former_pilot: 'TK-1' }).execute();
    return assetId;
  };

  before(async () => {
    t = await startTestApp({ engine, env: { METRICS_TOKEN } });
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  it('answers a retry after a lost answer with the first answer, Idempotent-Replayed: true, applied once and recorded once', async () => {
    const key = randomUUID();
    const body = JSON.stringify(DECOMMISSION_BODY);
    const url = new URL(await listenOnLoopback(t));
    // The client sends the DELETE and drops the connection before any answer.
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.end(
      `DELETE /v1/assets/TIE-0001 HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${admiral}\r\nIdempotency-Key: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.destroy();
    await waitUntil(async () => (await keyRow(key)) !== undefined, 'the first DELETE was decided and its answer kept');

    const retry = await decommission(t, 'TIE-0001', admiral).set('Idempotency-Key', key).expect(200);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.body.message, 'Asset TIE-0001 decommissioned successfully');
    assert.equal(retry.body.data.asset_id, 'TIE-0001');
    assert.match(String(retry.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
    const again = await decommission(t, 'TIE-0001', admiral).set('Idempotency-Key', key).expect(200);
    assert.deepEqual(again.body, retry.body);
    assert.equal(again.headers.etag, retry.headers.etag);
    assert.deepEqual(await eventsOf('TIE-0001'), [['asset.decommission', 'allowed', null]]);

    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    assert.match(metrics.text, /fleet_registry_idempotent_replays_total\{method="DELETE",route="\/v1\/assets\/:asset_id"\} 2/);
  });

  it('answers a first DELETE without Idempotent-Replayed, and takes the same key with the same body in another key order as the same request', async () => {
    const assetId = await newAsset();
    const key = randomUUID();
    const first = await decommission(t, assetId, admiral).set('Idempotency-Key', key).expect(200);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const reordered = { authorized_by: DECOMMISSION_BODY.authorized_by, reason: DECOMMISSION_BODY.reason };
    const replay = await decommission(t, assetId, admiral, reordered).set('Idempotency-Key', key).expect(200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.body, first.body);
  });

  it('refuses the same key with another body, path or method with 422 IDEMPOTENCY_KEY_MISMATCH, deciding nothing', async () => {
    const assetId = await newAsset();
    const key = randomUUID();
    await decommission(t, assetId, admiral).set('Idempotency-Key', key).expect(200);

    expectErrorBody(await decommission(t, assetId, admiral, { ...DECOMMISSION_BODY, reason: 'Another reason' }).set('Idempotency-Key', key), 422, 'IDEMPOTENCY_KEY_MISMATCH');
    expectErrorBody(await decommission(t, 'TIE-0002', admiral).set('Idempotency-Key', key), 422, 'IDEMPOTENCY_KEY_MISMATCH');
    expectErrorBody(await recommission(t, assetId, admiral, DECOMMISSION_BODY).set('Idempotency-Key', key), 422, 'IDEMPOTENCY_KEY_MISMATCH');
    assert.equal(await statusOf('TIE-0002'), 'active');
    assert.equal(await statusOf(assetId), 'decommissioned');
  });

  it('keeps no answer across callers: another officer\'s same key is another key, decided afresh', async () => {
    const assetId = await newAsset();
    const key = randomUUID();
    await decommission(t, assetId, admiral).set('Idempotency-Key', key).expect(200);

    const other = await decommission(t, assetId, t.bearer('admiral-8', 8)).set('Idempotency-Key', key);
    expectErrorBody(other, 404, 'ASSET_ACCESS_DENIED');
    assert.equal(other.headers['idempotent-replayed'], undefined);
  });

  it('keeps a 404 (the record\'s state) and replays it without recording another denial', async () => {
    const key = randomUUID();
    expectErrorBody(await decommission(t, 'XYZ-9999', admiral).set('Idempotency-Key', key), 404, 'ASSET_ACCESS_DENIED');
    const replay = await decommission(t, 'XYZ-9999', admiral).set('Idempotency-Key', key);
    expectErrorBody(replay, 404, 'ASSET_ACCESS_DENIED');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(await eventsOf('XYZ-9999'), [['asset.decommission', 'denied', 'ASSET_NOT_FOUND']]);
  });

  it('keeps no 401, 403 or 400: the retry with a valid token, clearance and body is decided afresh', async () => {
    const assetId = await newAsset();
    const key = randomUUID();
    expectErrorBody(await decommission(t, assetId, 'Bearer not-a-token').set('Idempotency-Key', key), 401, 'UNAUTHENTICATED');
    expectErrorBody(await decommission(t, assetId, t.bearer('admiral-7', 6)).set('Idempotency-Key', key), 403, 'ASSET_ACCESS_DENIED');
    expectErrorBody(await decommission(t, assetId, admiral, { reason: '' }).set('Idempotency-Key', key), 400, 'VALIDATION_ERROR');
    assert.equal(await keyRow(key), undefined);

    const decided = await decommission(t, assetId, admiral).set('Idempotency-Key', key).expect(200);
    assert.equal(decided.headers['idempotent-replayed'], undefined);
  });

  it('refuses a key that is not 1 to 255 visible ASCII characters with 400 naming Idempotency-Key, deciding nothing', async () => {
    const assetId = await newAsset();
    for (const key of ['a'.repeat(256), 'with space', 'caf\u00e9']) {
      expectErrorBody(await decommission(t, assetId, admiral).set('Idempotency-Key', key), 400, 'VALIDATION_ERROR', 'Idempotency-Key');
    }
    assert.equal(await statusOf(assetId), 'active');
  });

  it('takes a key past IDEMPOTENCY_TTL as a new key: the retry is decided afresh', async () => {
    const assetId = await newAsset();
    const key = randomUUID();
    await decommission(t, assetId, admiral).set('Idempotency-Key', key).expect(200);
    await t.db.updateTable('idempotency_keys').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('idempotency_key', '=', key).execute();

    const fresh = await decommission(t, assetId, admiral).set('Idempotency-Key', key);
    expectErrorBody(fresh, 404, 'ASSET_ACCESS_DENIED');
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(t.config.idempotency.ttlSeconds, 86_400);
    const row = await keyRow(key);
    assert.equal(Date.parse(row?.expires_at ?? '') - Date.parse(row?.claimed_at ?? ''), 86_400_000);
  });

  describe('a key claimed by a request still being decided', () => {
    let beside: RunningServer;

    before(async () => {
      // On SQLite, a second process on the same file.
      beside = await startInstanceBeside(t, t.config.database.dialect === 'sqlite' ? { DATABASE_URL: `sqlite:${t.config.database.path}` } : {});
    });
    after(() => beside.stop());

    /** The same keyed DELETE of `assetId` through the server at `url`. */
    const sendKeyed = (url: string, assetId: string, key: string) =>
      request(url).delete(`/v1/assets/${assetId}`).set('Authorization', admiral).set('Idempotency-Key', key).send(DECOMMISSION_BODY).then((res) => res);

    it('answers a retry while the first request is still being decided: on PostgreSQL 409 IDEMPOTENCY_KEY_IN_USE with Retry-After on every instance; on SQLite, once the first commits, its answer', async () => {
      const assetId = await newAsset();
      const key = randomUUID();
      if (t.config.database.dialect === 'postgres') {
        // The test holds the asset's row, so the first DELETE, its key claimed, waits in its UPDATE.
        const row = await holdAssetRow(t.db, assetId);
        const first = sendKeyed(beside.url, assetId, key);
        await waitUntil(async () => (await blockedBy(t.db, row.holder)).length > 0, 'the first DELETE waits for the row');
        for (const res of [await decommission(t, assetId, admiral).set('Idempotency-Key', key), await sendKeyed(beside.url, assetId, key)]) {
          expectErrorBody(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
          assert.equal(res.headers['retry-after'], '1');
        }
        await row.release();
        const decided = await first;
        assert.equal(decided.status, 200);
        assert.equal(decided.headers['idempotent-replayed'], undefined);
      } else {
        // Another process holds SQLite's write lock, so the DELETEs of both processes wait for it, the first to take it deciding.
        const other = await startInstanceBeside(t, { DATABASE_URL: `sqlite:${t.config.database.path}` });
        try {
          const lock = await holdSqliteWriteLock(t.config.database.path, 500);
          const [one, two] = await Promise.all([sendKeyed(beside.url, assetId, key), sendKeyed(other.url, assetId, key)]);
          await lock.released;
          assert.deepEqual([one.status, two.status], [200, 200]);
          assert.deepEqual([one.headers['idempotent-replayed'], two.headers['idempotent-replayed']].sort(), ['true', undefined]);
          assert.deepEqual(one.body, two.body);
        } finally {
          await other.stop();
        }
      }
      const replay = await decommission(t, assetId, admiral).set('Idempotency-Key', key).expect(200);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(await eventsOf(assetId), [['asset.decommission', 'allowed', null]]);
    });
  });
});

describeEachDatabase('Idempotency-Key with DECOMMISSION_APPROVAL=required', (engine) => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(() => t.close());

  it('replays the 202 with its Location, opening one request, and an approval once', async () => {
    const requester = t.bearer('officer-7', 7);
    const approver = t.bearer('officer-9', 9);
    const ask = { reason: 'Worn out', authorized_by: 'officer-9' };
    const key = randomUUID();

    const opened = await decommission(t, 'TIE-0001', requester, ask).set('Idempotency-Key', key).expect(202);
    const replay = await decommission(t, 'TIE-0001', requester, ask).set('Idempotency-Key', key).expect(202);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.headers.location, opened.headers.location);
    assert.deepEqual(replay.body, opened.body);
    assert.equal((await t.db.selectFrom('decommission_requests').selectAll().execute()).length, 1);

    const requestId = opened.body.data.request_id as string;
    const approveKey = randomUUID();
    const approved = await decideRequest(t, requestId, 'approve', approver).set('Idempotency-Key', approveKey).expect(200);
    const approvedAgain = await decideRequest(t, requestId, 'approve', approver).set('Idempotency-Key', approveKey).expect(200);
    assert.equal(approvedAgain.headers['idempotent-replayed'], 'true');
    assert.deepEqual(approvedAgain.body, approved.body);
    expectErrorBody(await decideRequest(t, requestId, 'approve', approver), 409, 'DECOMMISSION_REQUEST_NOT_PENDING');
    const allowed = (await auditEventsOf(t, 'TIE-0001')).filter((event) => event.outcome === 'allowed').map((event) => event.action);
    assert.deepEqual(allowed, ['decommission.request', 'decommission.approve', 'asset.decommission']);
  });
});
