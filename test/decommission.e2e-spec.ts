import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { DECOMMISSION_BODY, DECOMMISSION_RESULT_KEYS } from './support/fixtures';
import { describeEachDatabase, failAuditEvents } from './support/databases';
import { ACCESS_DENIED, assetRowOf, auditEventsOf, decommission, expectErrorBody } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

describeEachDatabase('DELETE /v1/assets/:asset_id', (engine) => {
  let t: TestApp;
  let admiral: string;

  const eventsFor = (assetId: string) => auditEventsOf(t, assetId);
  const assetRow = (assetId: string) => assetRowOf(t, assetId);

  before(async () => {
    t = await startTestApp({ engine });
  });
  after(() => t.close());
  beforeEach(async () => {
    admiral = t.bearer('admiral-7', 7);
  });

  it('decommissions an active asset with clearance 7: 200 and the spec body', async () => {
    const before = Date.now();
    const res = await decommission(t, 'TIE-0001', admiral).expect(200);

    assert.equal(res.body.status, 'success');
    assert.match(res.body.message, /TIE-0001 decommissioned successfully/);
    assert.deepEqual(Object.keys(res.body.data).sort(), DECOMMISSION_RESULT_KEYS);
    assert.equal(res.body.data.asset_id, 'TIE-0001');
    assert.equal(res.body.data.asset_type, 'vehicle');
    assert.equal(res.body.data.former_pilot, 'TK-421');
    assert.equal(res.body.data.decommission_reason, DECOMMISSION_BODY.reason);
    assert.equal(res.body.data.authorized_by, DECOMMISSION_BODY.authorized_by);
    assert.match(res.body.data.decommissioned_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.ok(Date.parse(res.body.data.decommissioned_at) >= before - 1000);
  });

  it('keeps the asset in the database as decommissioned, with reason, time and authoriser', async () => {
    const row = await assetRow('TIE-0001');
    assert.equal(row.status, 'decommissioned');
    assert.equal(row.decommission_reason, DECOMMISSION_BODY.reason);
    assert.equal(row.authorized_by, DECOMMISSION_BODY.authorized_by);
    assert.ok(row.decommissioned_at);
  });

  it('records the allowed decommission as one audit event with the actor and request details', async () => {
    const events = await eventsFor('TIE-0001');
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event.action, 'asset.decommission');
    assert.equal(event.outcome, 'allowed');
    assert.equal(event.reason, null);
    assert.equal(event.actor, 'admiral-7');
    assert.equal(event.actor_clearance, 7);
    assert.equal(event.method, 'DELETE');
    assert.equal(event.path, '/v1/assets/TIE-0001');
    assert.ok(event.request_id);
    assert.ok(event.ip);
  });

  it('refuses a second decommission of the same asset with 404 ASSET_ACCESS_DENIED and records it', async () => {
    const res = await decommission(t, 'TIE-0001', admiral).expect(404);
    assert.deepEqual(res.body, ACCESS_DENIED);
    const events = await eventsFor('TIE-0001');
    assert.equal(events.length, 2);
    assert.equal(events[1].outcome, 'denied');
    assert.equal(events[1].reason, 'ASSET_NOT_FOUND');
    assert.equal(events[1].actor, 'admiral-7');
  });

  it('answers an unknown asset with 404 ASSET_ACCESS_DENIED and records the denial', async () => {
    const res = await decommission(t, 'XYZ-9999', admiral).expect(404);
    assert.deepEqual(res.body, ACCESS_DENIED);
    const events = await eventsFor('XYZ-9999');
    assert.deepEqual(
      events.map((e) => [e.action, e.outcome, e.reason]),
      [['asset.decommission', 'denied', 'ASSET_NOT_FOUND']],
    );
  });

  it('refuses clearance 6 with 403 ASSET_ACCESS_DENIED, the same body as 404, records it and leaves the asset active', async () => {
    const res = await decommission(t, 'TIE-0002', t.bearer('lieutenant-6', 6)).expect(403);
    assert.deepEqual(res.body, ACCESS_DENIED);
    assert.equal((await assetRow('TIE-0002')).status, 'active');
    const events = await eventsFor('TIE-0002');
    assert.equal(events.length, 1);
    assert.equal(events[0].action, 'asset.decommission');
    assert.equal(events[0].outcome, 'denied');
    assert.equal(events[0].reason, 'CLEARANCE_INSUFFICIENT');
    assert.equal(events[0].actor, 'lieutenant-6');
    assert.equal(events[0].actor_clearance, 6);
  });

  it('accepts clearance 10', async () => {
    await decommission(t, 'FAC-0001', t.bearer('grand-moff', 10)).expect(200);
  });

  describe('checks run in order: token, clearance, input, asset', () => {
    it('401 beats 403, 400 and 404', async () => {
      expectErrorBody(await decommission(t, 'bad-id', undefined, '{not json'), 401, 'UNAUTHENTICATED');
    });

    it('403 beats 400 (bad id, malformed JSON, oversized body) and 404', async () => {
      const cadet = t.bearer('cadet', 3);
      for (const [assetId, body] of [
        ['bad-id', DECOMMISSION_BODY],
        ['XYZ-0404', { reason: '' }],
        ['XYZ-0404', '{not json'],
        ['XYZ-0404', JSON.stringify({ reason: 'x'.repeat(20_000) })],
      ] as const) {
        const res = await decommission(t, assetId, cadet, body).expect(403);
        assert.deepEqual(res.body, ACCESS_DENIED);
      }
    });

    it('400 beats 404: invalid input on an unknown asset is a validation error', async () => {
      expectErrorBody(await decommission(t, 'XYZ-0404', admiral, { reason: 'x' }), 400, 'VALIDATION_ERROR');
    });
  });

  describe('input', () => {
    const rejects = async (assetId: string, body: object, ...fields: [string, ...string[]]) => {
      const res = await decommission(t, assetId, admiral, body);
      for (const field of fields) {
        expectErrorBody(res, 400, 'VALIDATION_ERROR', field);
      }
      assert.equal((await assetRow('EQP-0001')).status, 'active');
    };

    it('refuses an asset id that does not match ^[A-Z]{3}-[0-9]{4}$', async () => {
      for (const id of ['eqp-0001', 'EQP-001', 'EQPX-0001', 'EQP_0001', 'EQP-00011']) {
        await rejects(id, DECOMMISSION_BODY, 'asset_id');
      }
    });

    it('requires reason and authorized_by', async () => {
      await rejects('EQP-0001', {}, 'reason', 'authorized_by');
      await rejects('EQP-0001', { reason: 'r' }, 'authorized_by');
      await rejects('EQP-0001', { authorized_by: 'a' }, 'reason');
    });

    it('refuses blank, non-string and over-long values', async () => {
      await rejects('EQP-0001', { reason: '   ', authorized_by: 'a' }, 'reason');
      await rejects('EQP-0001', { reason: '', authorized_by: 'a' }, 'reason');
      await rejects('EQP-0001', { reason: 'r', authorized_by: '\t' }, 'authorized_by');
      await rejects('EQP-0001', { reason: 42, authorized_by: 'a' }, 'reason');
      await rejects('EQP-0001', { reason: 'x'.repeat(501), authorized_by: 'a' }, 'reason');
      await rejects('EQP-0001', { reason: 'r', authorized_by: 'x'.repeat(101) }, 'authorized_by');
    });

    it('refuses unknown body fields', async () => {
      await rejects('EQP-0001', { ...DECOMMISSION_BODY, status: 'active' }, 'status');
    });

    it('accepts the boundary lengths 500 and 100', async () => {
      await decommission(t, 'EQP-0001', admiral, { reason: 'r'.repeat(500), authorized_by: 'a'.repeat(100) }).expect(200);
    });
  });

  it('records the path it was called on, /api/v1 included, in the allowed event', async () => {
    await t.http().delete('/api/v1/assets/TIE-0002').set('Authorization', admiral).send(DECOMMISSION_BODY).expect(200);
    const [event] = await eventsFor('TIE-0002').then((events) => events.filter((e) => e.outcome === 'allowed'));
    assert.equal(event.path, '/api/v1/assets/TIE-0002');
  });

  it('commits the decommission and its audit event together: when the event cannot be written, 503 and the asset stays active', async () => {
    const id = 'TXN-0001';
    await t.db.insertInto('assets').values({ asset_id: id, asset_type: 'vehicle', former_pilot: 'TK-1' }).execute();
    const restore = await failAuditEvents(t.db, engine, 'allowed');
    try {
      const res = await decommission(t, id, admiral).expect(503);
      assert.deepEqual(res.body, { status: 'error', message: 'The service is temporarily unavailable', error_code: 'SERVICE_UNAVAILABLE' });
      assert.equal((await assetRow(id)).status, 'active');
      assert.equal((await eventsFor(id)).length, 0);
    } finally {
      await restore();
    }
    await decommission(t, id, admiral).expect(200);
    assert.equal((await eventsFor(id)).length, 1);
  });

  it('decommissions exactly once under 50 concurrent requests and audits every attempt', async () => {
    const id = 'RUN-0001';
    await t.db.insertInto('assets').values({ asset_id: id, asset_type: 'vehicle', former_pilot: 'TK-2' }).execute();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        decommission(t, id, t.bearer(`officer-${index}`, 7), { reason: `attempt ${index}`, authorized_by: 'Grand Moff Tarkin' }),
      ),
    );
    const winners = responses.filter((res) => res.status === 200);
    assert.equal(winners.length, 1);
    for (const res of responses.filter((r) => r.status !== 200)) {
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, ACCESS_DENIED);
    }
    const row = await assetRow(id);
    assert.equal(row.status, 'decommissioned');
    assert.equal(row.decommission_reason, winners[0].body.data.decommission_reason, 'the row holds the winner\'s reason');
    const events = await eventsFor(id);
    assert.equal(events.length, 50);
    const allowed = events.filter((e) => e.outcome === 'allowed');
    assert.equal(allowed.length, 1);
    assert.equal(allowed[0].request_id, winners[0].headers['x-request-id'], 'the allowed event is the winner\'s');
    assert.equal(events.filter((e) => e.reason === 'ASSET_NOT_FOUND').length, 49);
  });
});
