import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AuditService } from '../src/audit';
import { describeEachDatabase } from './support/databases';
import { auditEventsOf, decideRequest, decommission, expectErrorBody, recommission, verifyAuditChain } from './support/http';
import type { RunningServer } from './support/processes';
import { startInstanceBeside, startTestApp, type TestApp } from './support/test-app';

/**
 * The two-person rule under DECOMMISSION_APPROVAL=required, as attacked from outside (issue 36, findings
 * 4 and 5): one officer must not undo what two decided, nor lock every asset with requests no one can end.
 */
const REQUESTER = 'officer-7';
const APPROVER = 'officer-9';
const ASK = { reason: 'Damaged beyond repair', authorized_by: APPROVER };
const BRING_BACK = { reason: 'Repaired at Scarif', authorized_by: APPROVER };

/** Active assets beyond the fixtures', for a requester who tries to hold many. */
const extraAssets = (count: number) => Array.from({ length: count }, (_, index) => `LCK-${String(index + 1).padStart(4, '0')}`);

const addAssets = (t: TestApp, assetIds: string[]) =>
  t.db
    .insertInto('assets')
    .values(assetIds.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-7', status: 'active' as const })))
    .execute();

const statusOf = async (t: TestApp, assetId: string) =>
  (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;

describeEachDatabase('the two-person rule for a recommission (DECOMMISSION_APPROVAL=required)', (engine) => {
  let t: TestApp;
  let requester: string;
  let approver: string;

  /** TIE-0001 decommissioned as the rule wants it: requested by one officer, approved by another. */
  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
    requester = t.bearer(REQUESTER, 7);
    approver = t.bearer(APPROVER, 7);
    const requestId = (await decommission(t, 'TIE-0001', requester, ASK).expect(202)).body.data.request_id;
    await decideRequest(t, requestId, 'approve', approver).expect(200);
    assert.equal(await statusOf(t, 'TIE-0001'), 'decommissioned');
  });
  after(() => t.close());

  it('refuses a recommission whose authorized_by is the caller with 422 AUTHORIZED_BY_IS_CALLER, recorded under asset.recommission', async () => {
    const res = await recommission(t, 'TIE-0001', requester, { ...BRING_BACK, authorized_by: REQUESTER });

    expectErrorBody(res, 422, 'AUTHORIZED_BY_IS_CALLER', 'authorized_by');
    assert.equal(await statusOf(t, 'TIE-0001'), 'decommissioned');
    const last = (await auditEventsOf(t, 'TIE-0001')).at(-1);
    assert.deepEqual([last?.action, last?.outcome, last?.reason, last?.actor], ['asset.recommission', 'denied', 'AUTHORIZED_BY_IS_CALLER', REQUESTER]);
  });

  it('opens a request of kind recommission (202 with Location) instead of recommissioning alone, naming another officer', async () => {
    const res = await recommission(t, 'TIE-0001', requester, BRING_BACK).expect(202);

    const request = res.body.data;
    assert.equal(res.headers.location, `/v1/decommission-requests/${request.request_id}`);
    assert.deepEqual(
      [request.asset_id, request.kind, request.state, request.requested_by, request.authorized_by, request.reason],
      ['TIE-0001', 'recommission', 'pending', REQUESTER, APPROVER, BRING_BACK.reason],
    );
    assert.equal(await statusOf(t, 'TIE-0001'), 'decommissioned', 'one officer alone has not undone the decommission');
    const requested = (await auditEventsOf(t, 'TIE-0001')).at(-1);
    assert.deepEqual([requested?.action, requested?.outcome, requested?.actor, requested?.method, requested?.path], [
      'decommission.request',
      'allowed',
      REQUESTER,
      'POST',
      '/v1/assets/TIE-0001/recommission',
    ]);
    assert.deepEqual(JSON.parse(requested?.details ?? ''), { request_id: request.request_id, ...BRING_BACK });
  });

  it('lets the requester not approve their own recommission request, and recommissions on the named officer\'s approval, in one transaction', async () => {
    const [pending] = await t.db.selectFrom('decommission_requests').select('request_id').where('asset_id', '=', 'TIE-0001').where('state', '=', 'pending').execute();
    expectErrorBody(await decideRequest(t, pending.request_id, 'approve', requester), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');

    const res = await decideRequest(t, pending.request_id, 'approve', approver).expect(200);

    assert.deepEqual([res.body.status, res.body.message, res.body.data.asset_id, res.body.data.status], ['success', 'Asset TIE-0001 recommissioned successfully', 'TIE-0001', 'active']);
    assert.equal(await statusOf(t, 'TIE-0001'), 'active');
    const allowed = (await auditEventsOf(t, 'TIE-0001')).filter((event) => event.outcome === 'allowed').slice(-3);
    assert.deepEqual(
      allowed.map((event) => [event.action, event.actor, JSON.parse(event.details ?? '')]),
      [
        ['decommission.request', REQUESTER, { request_id: pending.request_id, ...BRING_BACK }],
        ['decommission.approve', APPROVER, { request_id: pending.request_id, ...BRING_BACK }],
        ['asset.recommission', APPROVER, { request_id: pending.request_id, ...BRING_BACK }],
      ],
    );
    const request = (await t.http().get(`/v1/decommission-requests/${pending.request_id}`).set('Authorization', requester).expect(200)).body.data;
    assert.deepEqual([request.kind, request.state, request.decided_by], ['recommission', 'approved', APPROVER]);
  });

  it('answers a recommission request for an active asset 409 ASSET_NOT_DECOMMISSIONED and for an absent one 404, as a direct recommission does', async () => {
    expectErrorBody(await recommission(t, 'TIE-0002', requester, BRING_BACK), 409, 'ASSET_NOT_DECOMMISSIONED');
    expectErrorBody(await recommission(t, 'XYZ-9999', requester, BRING_BACK), 404, 'ASSET_ACCESS_DENIED');
    assert.equal(await t.db.selectFrom('decommission_requests').select('request_id').where('asset_id', 'in', ['TIE-0002', 'XYZ-9999']).executeTakeFirst(), undefined);
  });

  it('refuses the approval of a recommission request whose asset is active again with 409 ASSET_NOT_DECOMMISSIONED; the request stays pending', async () => {
    const requestId = (await recommission(t, 'OLD-0001', requester, BRING_BACK).expect(202)).body.data.request_id;
    await t.db.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', 'OLD-0001').execute();
    try {
      expectErrorBody(await decideRequest(t, requestId, 'approve', approver), 409, 'ASSET_NOT_DECOMMISSIONED');
      // Recorded as the refusal of the recommission it would make, on no asset of its path, as an approval's decommission is.
      const denial = await t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
      assert.deepEqual([denial.action, denial.reason, denial.actor, denial.path], ['asset.recommission', 'ASSET_NOT_DECOMMISSIONED', APPROVER, `/v1/decommission-requests/${requestId}/approve`]);
      assert.equal((await t.db.selectFrom('decommission_requests').select('state').where('request_id', '=', requestId).executeTakeFirstOrThrow()).state, 'pending');
    } finally {
      await t.db.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', 'OLD-0001').execute();
      await decideRequest(t, requestId, 'withdraw', requester).expect(200);
    }
  });

  it('lists both kinds, a decommission request saying so', async () => {
    const kinds = (await t.http().get('/v1/decommission-requests?asset_id=TIE-0001').set('Authorization', approver).expect(200)).body.data.requests.map((r: { kind: string }) => r.kind);
    assert.deepEqual(kinds, ['recommission', 'decommission']);
  });

  it('leaves a trail that verifies intact', async () => {
    assert.equal((await verifyAuditChain(t, approver).expect(200)).body.data.state, 'intact');
  });

  it('lets audit:verify catch a recommission through a request that no second officer approved', async () => {
    const requestId = (await decommission(t, 'FAC-0001', requester, ASK).expect(202)).body.data.request_id;
    await decideRequest(t, requestId, 'approve', approver).expect(200);
    // Written as the service writes a recommission through a request, chained like any event, with the approval left out.
    const forged = randomUUID();
    const origin = { requestId: randomUUID(), ip: '127.0.0.1', method: 'POST', path: '/v1/assets/FAC-0001/recommission', assetId: 'FAC-0001' };
    for (const action of ['decommission.request', 'asset.recommission']) {
      await t.app.get(AuditService).record({ action, outcome: 'allowed', actor: { id: REQUESTER, clearance: 7 }, origin, details: { request_id: forged, ...BRING_BACK } });
    }
    await t.db.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', 'FAC-0001').execute();

    const { state, disagreeing_assets } = (await verifyAuditChain(t, approver).expect(200)).body.data;
    assert.equal(state, 'broken');
    assert.deepEqual(disagreeing_assets.map(({ asset_id, fields }: { asset_id: string; fields: string[] }) => [asset_id, fields]), [['FAC-0001', ['approved_by']]]);
  });
});

describeEachDatabase('a way out of a lockout by requests naming no real officer (DECOMMISSION_APPROVAL=required)', (engine) => {
  let t: TestApp;
  let requester: string;
  const locked = ['TIE-0001', 'TIE-0002', 'EQP-0001', 'FAC-0001'];

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
    requester = t.bearer(REQUESTER, 7);
    for (const [index, assetId] of locked.entries()) {
      await decommission(t, assetId, requester, { reason: 'Locked', authorized_by: `nobody-${index}` }).expect(202);
    }
  });
  after(() => t.close());

  it('keeps an honest DELETE out while the requests are pending: 409 DECOMMISSION_REQUEST_PENDING', async () => {
    expectErrorBody(await decommission(t, 'TIE-0001', t.bearer('officer-8', 8), { reason: 'Honest', authorized_by: APPROVER }), 409, 'DECOMMISSION_REQUEST_PENDING');
  });

  it('still refuses a rejection by an officer of clearance 8 that the request does not name', async () => {
    const [request] = await t.db.selectFrom('decommission_requests').select('request_id').where('asset_id', '=', 'TIE-0001').execute();
    expectErrorBody(await decideRequest(t, request.request_id, 'reject', t.bearer('officer-8', 8)), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
  });

  it('lets an officer of clearance 9 reject any pending request, recorded with that officer as actor; the assets are free again', async () => {
    const overseer = t.bearer('commander-9', 9);
    const requests = await t.db.selectFrom('decommission_requests').select(['request_id', 'asset_id', 'authorized_by']).where('state', '=', 'pending').orderBy('id').execute();
    assert.equal(requests.length, locked.length);

    for (const { request_id } of requests) {
      const res = await decideRequest(t, request_id, 'reject', overseer).expect(200);
      assert.deepEqual([res.body.data.state, res.body.data.decided_by], ['rejected', 'commander-9']);
    }

    for (const { request_id, asset_id, authorized_by } of requests) {
      const rejection = (await auditEventsOf(t, asset_id)).at(-1);
      assert.deepEqual([rejection?.action, rejection?.outcome, rejection?.actor, rejection?.actor_clearance], ['decommission.reject', 'allowed', 'commander-9', 9]);
      assert.deepEqual(JSON.parse(rejection?.details ?? ''), { request_id, reason: 'Locked', authorized_by });
    }
    await decommission(t, 'TIE-0001', t.bearer('officer-8', 8), { reason: 'Honest', authorized_by: APPROVER }).expect(202);
  });

  it('does not let clearance 9 approve a request it is not named in: the rule stays two officers', async () => {
    const [pending] = await t.db.selectFrom('decommission_requests').select('request_id').where('asset_id', '=', 'TIE-0001').where('state', '=', 'pending').execute();
    expectErrorBody(await decideRequest(t, pending.request_id, 'approve', t.bearer('commander-9', 9)), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
  });
});

describeEachDatabase('pending requests per officer (DECOMMISSION_REQUESTS_PER_OFFICER)', (engine) => {
  let t: TestApp;
  let requester: string;
  const assets = extraAssets(12);

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required', DECOMMISSION_REQUESTS_PER_OFFICER: '2' } });
    requester = t.bearer(REQUESTER, 7);
    await addAssets(t, assets);
  });
  after(() => t.close());

  it('answers the request past the limit 429 DECOMMISSION_REQUEST_LIMIT with Retry-After until the oldest pending one expires, recorded as a denial', async () => {
    await decommission(t, assets[0], requester, ASK).expect(202);
    await recommission(t, 'OLD-0001', requester, BRING_BACK).expect(202);

    const res = await decommission(t, assets[1], requester, ASK);

    expectErrorBody(res, 429, 'DECOMMISSION_REQUEST_LIMIT');
    assert.match(res.body.message, /2 pending/);
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter > 86_300 && retryAfter <= 86_400, `Retry-After ${res.headers['retry-after']}`);
    const denial = (await auditEventsOf(t, assets[1])).at(-1);
    assert.deepEqual([denial?.action, denial?.outcome, denial?.reason, denial?.actor], ['asset.decommission', 'denied', 'DECOMMISSION_REQUEST_LIMIT', REQUESTER]);
    assert.equal(await t.db.selectFrom('decommission_requests').select('request_id').where('asset_id', '=', assets[1]).executeTakeFirst(), undefined);
  });

  it('counts each officer on their own, and frees a place when a request ends', async () => {
    await decommission(t, assets[1], t.bearer('officer-8', 8), ASK).expect(202);

    const [mine] = await t.db.selectFrom('decommission_requests').select('request_id').where('asset_id', '=', assets[0]).execute();
    await decideRequest(t, mine.request_id, 'withdraw', requester).expect(200);
    await decommission(t, assets[2], requester, ASK).expect(202);
  });

  it('does not count requests past their expiry', async () => {
    await t.db.updateTable('decommission_requests').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('requested_by', '=', REQUESTER).where('state', '=', 'pending').execute();
    await decommission(t, assets[3], requester, ASK).expect(202);
    await decommission(t, assets[4], requester, ASK).expect(202);
  });

  it('lets exactly the limit through when one officer races requests for many assets', async () => {
    const racer = t.bearer('officer-racer', 7);
    const racing = assets.slice(5);

    const statuses = await Promise.all(racing.map(async (assetId) => (await decommission(t, assetId, racer, ASK)).status));

    assert.deepEqual([statuses.filter((s) => s === 202).length, statuses.filter((s) => s === 429).length], [2, racing.length - 2], String(statuses));
    const pending = await t.db.selectFrom('decommission_requests').select('request_id').where('requested_by', '=', 'officer-racer').where('state', '=', 'pending').execute();
    assert.equal(pending.length, 2);
  });
});

describe('DECOMMISSION_REQUESTS_PER_OFFICER at its default', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ env: { DECOMMISSION_APPROVAL: 'required' } });
    await addAssets(t, extraAssets(6));
  });
  after(() => t.close());

  it('lets one officer hold 5 pending requests, and refuses the sixth', async () => {
    const requester = t.bearer(REQUESTER, 7);
    for (const assetId of extraAssets(5)) {
      await decommission(t, assetId, requester, ASK).expect(202);
    }
    expectErrorBody(await decommission(t, extraAssets(6)[5], requester, ASK), 429, 'DECOMMISSION_REQUEST_LIMIT');
  });
});

describe('pending requests per officer across two instances on one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  const LIMIT = '3';
  let t: TestApp;
  let other: RunningServer;
  const assets = extraAssets(16);

  before(async () => {
    t = await startTestApp({ engine: 'postgres', env: { DECOMMISSION_APPROVAL: 'required', DECOMMISSION_REQUESTS_PER_OFFICER: LIMIT } });
    other = await startInstanceBeside(t, { DECOMMISSION_APPROVAL: 'required', DECOMMISSION_REQUESTS_PER_OFFICER: LIMIT });
    await addAssets(t, assets);
  });
  after(async () => {
    await other.stop();
    await t.close();
  });

  it('lets exactly the limit through when one officer races requests for many assets on both instances', async () => {
    const racer = t.bearer('officer-racer', 7);
    const onOther = (assetId: string) =>
      fetch(`${other.url}/v1/assets/${assetId}`, { method: 'DELETE', headers: { Authorization: racer, 'Content-Type': 'application/json' }, body: JSON.stringify(ASK) });

    const statuses = await Promise.all(
      assets.map(async (assetId, index) => (index % 2 === 0 ? (await onOther(assetId)).status : (await decommission(t, assetId, racer, ASK)).status)),
    );

    assert.deepEqual([statuses.filter((s) => s === 202).length, statuses.filter((s) => s === 429).length], [3, assets.length - 3], String(statuses));
    const pending = await t.db.selectFrom('decommission_requests').select('request_id').where('requested_by', '=', 'officer-racer').where('state', '=', 'pending').execute();
    assert.equal(pending.length, 3);
  });
});
