import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DECOMMISSIONED_ASSET, RECOMMISSION_BODY } from './support/fixtures';
import { describeEachDatabase, failAuditEvents } from './support/databases';
import { ACCESS_DENIED, assetRowOf, auditEventsOf, decommission, expectErrorBody, getAsset, listAuditEvents, recommission, verifyAuditChain } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

describeEachDatabase('POST /v1/assets/:asset_id/recommission', (engine) => {
  let t: TestApp;
  let admiral: string;

  const eventsFor = (assetId: string) => auditEventsOf(t, assetId);
  const assetRow = (assetId: string) => assetRowOf(t, assetId);
  /** An asset as an import writes it: one that arrives decommissioned is marked so, having no decommission event. */
  const addAsset = (assetId: string, status: 'active' | 'decommissioned') =>
    t.db
      .insertInto('assets')
      .values({ asset_id: assetId, asset_type: 'vehicle', former_pilot: 'TK-7', status, imported_decommissioned: status === 'decommissioned' ? 1 : 0 })
      .execute();

  before(async () => {
    t = await startTestApp({ engine });
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  it('recommissions a decommissioned asset with clearance 7: 200, the asset active again, its last decommission kept on the record', async () => {
    const res = await recommission(t, 'OLD-0001', admiral).expect(200);
    assert.deepEqual(res.body, {
      status: 'success',
      message: 'Asset OLD-0001 recommissioned successfully',
      data: { ...DECOMMISSIONED_ASSET, status: 'active' },
    });
    assert.equal((await assetRow('OLD-0001')).status, 'active');
    assert.deepEqual((await getAsset(t, 'OLD-0001', admiral).expect(200)).body.data, res.body.data);
  });

  it('records the recommission as one allowed event with the officer and request details', async () => {
    const events = await eventsFor('OLD-0001');
    assert.deepEqual(
      events.map((e) => [e.action, e.outcome, e.reason, e.actor, e.actor_clearance, e.method, e.path]),
      [['asset.recommission', 'allowed', null, 'admiral-7', 7, 'POST', '/v1/assets/OLD-0001/recommission']],
    );
  });

  it("gives the recommission's event the body's reason and authorising officer as details, as a decommission's event has", async () => {
    const listed = await listAuditEvents(t, 'asset_id=OLD-0001', admiral).expect(200);
    assert.deepEqual(
      listed.body.data.events.map((e: { action: string; details: unknown }) => [e.action, e.details]),
      [['asset.recommission', RECOMMISSION_BODY]],
    );
  });

  it('refuses an active asset with 409 ASSET_NOT_DECOMMISSIONED and records the denial', async () => {
    expectErrorBody(await recommission(t, 'OLD-0001', admiral), 409, 'ASSET_NOT_DECOMMISSIONED');
    expectErrorBody(await recommission(t, 'TIE-0002', admiral), 409, 'ASSET_NOT_DECOMMISSIONED');
    const [event] = await eventsFor('TIE-0002');
    assert.deepEqual([event.action, event.outcome, event.reason, event.actor], ['asset.recommission', 'denied', 'ASSET_NOT_DECOMMISSIONED', 'admiral-7']);
  });

  it('answers an unknown asset with 404 ASSET_ACCESS_DENIED, as DELETE does, and records the denial', async () => {
    const res = await recommission(t, 'XYZ-9999', admiral).expect(404);
    assert.deepEqual(res.body, ACCESS_DENIED);
    assert.deepEqual((await eventsFor('XYZ-9999')).map((e) => [e.action, e.outcome, e.reason]), [['asset.recommission', 'denied', 'ASSET_NOT_FOUND']]);
  });

  it('refuses clearance 6 with 403 ASSET_ACCESS_DENIED, the same body whether the asset exists or not, and records it', async () => {
    await addAsset('LOW-0001', 'decommissioned');
    const lieutenant = t.bearer('lieutenant-6', 6);
    for (const assetId of ['LOW-0001', 'XYZ-0403']) {
      assert.deepEqual((await recommission(t, assetId, lieutenant).expect(403)).body, ACCESS_DENIED);
    }
    assert.equal((await assetRow('LOW-0001')).status, 'decommissioned');
    assert.deepEqual((await eventsFor('LOW-0001')).map((e) => [e.action, e.outcome, e.reason, e.actor]), [['asset.recommission', 'denied', 'CLEARANCE_INSUFFICIENT', 'lieutenant-6']]);
  });

  describe('checks run in order: token, clearance, input, asset', () => {
    it('401 without a token, 403 before a bad id or body, 400 before 404', async () => {
      expectErrorBody(await recommission(t, 'bad-id', undefined, '{not json'), 401, 'UNAUTHENTICATED');
      for (const [assetId, body] of [['bad-id', RECOMMISSION_BODY], ['XYZ-0404', '{not json'], ['XYZ-0404', { reason: '' }]] as const) {
        assert.deepEqual((await recommission(t, assetId, t.bearer('cadet', 3), body).expect(403)).body, ACCESS_DENIED);
      }
      expectErrorBody(await recommission(t, 'XYZ-0404', admiral, { reason: 'x' }), 400, 'VALIDATION_ERROR', 'authorized_by');
    });

    it('validates the body as DELETE does, naming each field', async () => {
      await addAsset('VAL-0001', 'decommissioned');
      const rejects = async (body: object, field: string) => expectErrorBody(await recommission(t, 'VAL-0001', admiral, body), 400, 'VALIDATION_ERROR', field);
      await rejects({ authorized_by: 'a' }, 'reason');
      await rejects({ reason: '   ', authorized_by: 'a' }, 'reason');
      await rejects({ reason: 'r', authorized_by: 'x'.repeat(101) }, 'authorized_by');
      await rejects({ ...RECOMMISSION_BODY, status: 'active' }, 'status');
      expectErrorBody(await recommission(t, 'vAL-0001', admiral), 400, 'VALIDATION_ERROR', 'asset_id');
      assert.equal((await assetRow('VAL-0001')).status, 'decommissioned');
    });
  });

  it('commits the recommission and its event together: when the event cannot be written, 503 and the asset stays decommissioned', async () => {
    await addAsset('TXN-0001', 'decommissioned');
    const restore = await failAuditEvents(t.db, engine, 'allowed');
    try {
      expectErrorBody(await recommission(t, 'TXN-0001', admiral), 503, 'SERVICE_UNAVAILABLE');
      assert.equal((await assetRow('TXN-0001')).status, 'decommissioned');
      assert.equal((await eventsFor('TXN-0001')).length, 0);
    } finally {
      await restore();
    }
    await recommission(t, 'TXN-0001', admiral).expect(200);
  });

  it('recommissions exactly once under 50 concurrent requests: one 200, 49 409, every attempt audited', async () => {
    await addAsset('RUN-0001', 'decommissioned');
    const responses = await Promise.all(Array.from({ length: 50 }, (_, index) => recommission(t, 'RUN-0001', t.bearer(`officer-${index}`, 7))));
    const winners = responses.filter((res) => res.status === 200);
    assert.equal(winners.length, 1);
    for (const res of responses.filter((r) => r.status !== 200)) {
      expectErrorBody(res, 409, 'ASSET_NOT_DECOMMISSIONED');
    }
    const events = await eventsFor('RUN-0001');
    assert.equal(events.length, 50);
    assert.deepEqual(events.filter((e) => e.outcome === 'allowed').map((e) => e.request_id), [winners[0].headers['x-request-id']]);
  });

  it('keeps the earlier decommission in the trail: the audit query by asset_id lists the history, newest first', async () => {
    await addAsset('HIS-0001', 'active');
    await decommission(t, 'HIS-0001', admiral).expect(200);
    await recommission(t, 'HIS-0001', admiral).expect(200);
    await decommission(t, 'HIS-0001', admiral).expect(200);
    const res = await listAuditEvents(t, 'asset_id=HIS-0001', admiral).expect(200);
    assert.deepEqual(
      res.body.data.events.map((e: { action: string; outcome: string }) => [e.action, e.outcome]),
      [['asset.decommission', 'allowed'], ['asset.recommission', 'allowed'], ['asset.decommission', 'allowed']],
    );
  });

  it("keeps the audit verification's cross-check of asset rows: a recommissioned asset is intact while active, and disagrees once its row says decommissioned", async () => {
    await addAsset('VER-0001', 'active');
    await decommission(t, 'VER-0001', admiral).expect(200);
    await recommission(t, 'VER-0001', admiral).expect(200);
    const verified = await verifyAuditChain(t, admiral).expect(200);
    assert.deepEqual([verified.body.data.state, verified.body.data.disagreeing_assets], ['intact', undefined]);

    await t.db.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', 'VER-0001').execute();
    try {
      const tampered = await verifyAuditChain(t, admiral).expect(200);
      const [recommissionEvent] = (await eventsFor('VER-0001')).filter((e) => e.action === 'asset.recommission');
      assert.equal(tampered.body.data.state, 'broken');
      assert.deepEqual(tampered.body.data.disagreeing_assets, [{ asset_id: 'VER-0001', event_id: Number(recommissionEvent.id), fields: ['status'] }]);
    } finally {
      await t.db.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', 'VER-0001').execute();
    }
  });
});
