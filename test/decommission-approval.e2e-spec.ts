import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { AuditService } from '../src/audit';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_RESULT_KEYS } from './support/fixtures';
import { ACCESS_DENIED, auditEventsOf, decideRequest, decommission, expectErrorBody, getAsset, listDecommissionRequests, verifyAuditChain } from './support/http';
import { type RunningServer, runScript, SCRIPTS } from './support/processes';
import { startInstanceBeside, startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const REQUEST_KEYS = ['request_id', 'asset_id', 'asset_ids', 'batch_id', 'kind', 'state', 'requested_by', 'authorized_by', 'reason', 'created_at', 'expires_at', 'decided_at', 'decided_by'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The two officers of a decommission: the one who asks, and the one named to approve. */
const REQUESTER = 'officer-7';
const APPROVER = 'officer-9';
const ASK = { reason: 'Damaged beyond repair', authorized_by: APPROVER };

describeEachDatabase('decommission with DECOMMISSION_APPROVAL=required', (engine) => {
  let t: TestApp;
  let requester: string;
  let approver: string;
  let bystander: string;

  const eventsFor = (assetId: string) => auditEventsOf(t, assetId);
  const eventsOf = async (assetId: string) => (await eventsFor(assetId)).map((event) => [event.action, event.outcome, event.reason, event.actor]);
  const statusOf = async (assetId: string) =>
    (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;
  /** A pending request for the asset, opened by the requester and naming the approver; its id. */
  const requestFor = async (assetId: string) => (await decommission(t, assetId, requester, ASK).expect(202)).body.data.request_id as string;

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
    requester = t.bearer(REQUESTER, 7);
    approver = t.bearer(APPROVER, 8);
    bystander = t.bearer('officer-10', 10);
  });
  after(() => t.close());

  describe('the request', () => {
    it('refuses authorized_by naming the caller with 422 AUTHORIZED_BY_IS_CALLER, records the denial and leaves the asset active', async () => {
      const res = await decommission(t, 'TIE-0001', requester, { reason: 'Worn out', authorized_by: REQUESTER });

      expectErrorBody(res, 422, 'AUTHORIZED_BY_IS_CALLER', 'authorized_by');
      assert.equal(await statusOf('TIE-0001'), 'active');
      assert.deepEqual(await eventsOf('TIE-0001'), [['asset.decommission', 'denied', 'AUTHORIZED_BY_IS_CALLER', REQUESTER]]);
    });

    it('answers 202 with Location and the pending request; the asset stays active; the request is an audit event', async () => {
      const started = Date.now();
      const res = await decommission(t, 'TIE-0001', requester, ASK).expect(202);

      const request = res.body.data;
      assert.equal(res.body.status, 'success');
      assert.deepEqual(Object.keys(request), REQUEST_KEYS);
      assert.match(request.request_id, UUID);
      assert.equal(res.headers.location, `/v1/decommission-requests/${request.request_id}`);
      assert.deepEqual(
        { ...request, request_id: undefined, created_at: undefined, expires_at: undefined },
        { request_id: undefined, asset_id: 'TIE-0001', asset_ids: ['TIE-0001'], batch_id: null, kind: 'decommission', state: 'pending', requested_by: REQUESTER, authorized_by: APPROVER, reason: ASK.reason, created_at: undefined, expires_at: undefined, decided_at: null, decided_by: null },
      );
      assert.equal(Date.parse(request.expires_at) - Date.parse(request.created_at), 86_400_000);
      assert.ok(Date.parse(request.created_at) >= started - 1000);
      assert.equal(await statusOf('TIE-0001'), 'active');
      const [, requested] = await eventsFor('TIE-0001');
      assert.deepEqual([requested.action, requested.outcome, requested.actor, requested.method], ['decommission.request', 'allowed', REQUESTER, 'DELETE']);
      assert.deepEqual(JSON.parse(requested.details ?? ''), { request_id: request.request_id, reason: ASK.reason, authorized_by: APPROVER });
      assert.deepEqual((await t.http().get(res.headers.location).set('Authorization', bystander).expect(200)).body.data, request);
    });

    it('refuses a second request while one is pending with 409 DECOMMISSION_REQUEST_PENDING naming it', async () => {
      const [pending] = (await listDecommissionRequests(t, 'asset_id=TIE-0001&state=pending', requester).expect(200)).body.data.requests;

      const res = await decommission(t, 'TIE-0001', bystander, { reason: 'Again', authorized_by: APPROVER });

      expectErrorBody(res, 409, 'DECOMMISSION_REQUEST_PENDING');
      assert.ok(res.body.message.includes(pending.request_id), res.body.message);
      assert.equal((await eventsFor('TIE-0001')).at(-1)?.reason, 'DECOMMISSION_REQUEST_PENDING');
    });

    it('answers an absent or decommissioned asset as a direct decommission does: 404 ASSET_ACCESS_DENIED', async () => {
      for (const assetId of ['XYZ-9999', 'OLD-0001']) {
        const res = await decommission(t, assetId, requester, ASK).expect(404);
        assert.deepEqual(res.body, ACCESS_DENIED);
        assert.deepEqual((await eventsOf(assetId)).at(-1), ['asset.decommission', 'denied', 'ASSET_NOT_FOUND', REQUESTER]);
      }
    });

    it('keeps refusing clearance 6 with 403 ASSET_ACCESS_DENIED', async () => {
      expectErrorBody(await decommission(t, 'TIE-0002', t.bearer('lieutenant-6', 6), ASK), 403, 'ASSET_ACCESS_DENIED');
    });
  });

  describe('the approval', () => {
    let requestId: string;
    before(async () => {
      requestId = await requestFor('TIE-0002');
    });

    it('refuses the requester approving their own request with 403, records it, and leaves the asset active', async () => {
      expectErrorBody(await decideRequest(t, requestId, 'approve', requester), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
      assert.equal(await statusOf('TIE-0002'), 'active');
      assert.deepEqual((await eventsOf('TIE-0002')).at(-1), ['decommission.approve', 'denied', 'NOT_AUTHORIZING_OFFICER', REQUESTER]);
    });

    it('refuses an officer the request does not name with 403 and records it', async () => {
      expectErrorBody(await decideRequest(t, requestId, 'approve', bystander), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
      const denial = await t.db.selectFrom('audit_events').selectAll().where('actor', '=', 'officer-10').where('action', '=', 'decommission.approve').executeTakeFirstOrThrow();
      assert.deepEqual([denial.outcome, denial.reason, denial.path], ['denied', 'NOT_AUTHORIZING_OFFICER', `/v1/decommission-requests/${requestId}/approve`]);
      assert.equal(await statusOf('TIE-0002'), 'active');
    });

    it('refuses the named officer below clearance 7 with 403 CLEARANCE_INSUFFICIENT', async () => {
      expectErrorBody(await decideRequest(t, requestId, 'approve', t.bearer(APPROVER, 6)), 403, 'CLEARANCE_INSUFFICIENT');
    });

    it("decommissions the asset on the named officer's approval: 200 with the spec's decommission body", async () => {
      const res = await decideRequest(t, requestId, 'approve', approver).expect(200);

      assert.equal(res.body.status, 'success');
      assert.equal(res.body.message, 'Asset TIE-0002 decommissioned successfully');
      assert.deepEqual(Object.keys(res.body.data).sort(), DECOMMISSION_RESULT_KEYS);
      assert.deepEqual([res.body.data.decommission_reason, res.body.data.authorized_by], [ASK.reason, APPROVER]);
      const asset = (await getAsset(t, 'TIE-0002', bystander).expect(200)).body.data;
      assert.deepEqual([asset.status, asset.authorized_by, asset.decommissioned_at], ['decommissioned', APPROVER, res.body.data.decommissioned_at]);
    });

    it('records the approval and the decommission, both by the named officer, and marks the request approved', async () => {
      const events = (await eventsFor('TIE-0002')).filter((event) => event.outcome === 'allowed');
      assert.deepEqual(
        events.map((event) => [event.action, event.actor, JSON.parse(event.details ?? '')]),
        [
          ['decommission.request', REQUESTER, { request_id: requestId, ...ASK }],
          ['decommission.approve', APPROVER, { request_id: requestId, ...ASK }],
          ['asset.decommission', APPROVER, { request_id: requestId, ...ASK }],
        ],
      );
      const request = (await t.http().get(`/v1/decommission-requests/${requestId}`).set('Authorization', requester).expect(200)).body.data;
      assert.deepEqual([request.state, request.decided_by], ['approved', APPROVER]);
      assert.ok(request.decided_at);
    });

    it('refuses a second approval with 409 DECOMMISSION_REQUEST_NOT_PENDING', async () => {
      expectErrorBody(await decideRequest(t, requestId, 'approve', approver), 409, 'DECOMMISSION_REQUEST_NOT_PENDING');
      assert.deepEqual((await eventsOf('TIE-0002')).at(-1), ['decommission.approve', 'denied', 'DECOMMISSION_REQUEST_NOT_PENDING', APPROVER]);
    });

    it('answers an unknown request 404 DECOMMISSION_REQUEST_NOT_FOUND and a malformed id 400 naming request_id', async () => {
      expectErrorBody(await decideRequest(t, '00000000-0000-4000-8000-000000000000', 'approve', approver), 404, 'DECOMMISSION_REQUEST_NOT_FOUND');
      expectErrorBody(await decideRequest(t, 'not-a-uuid', 'approve', approver), 400, 'VALIDATION_ERROR', 'request_id');
    });
  });

  describe('withdrawal and rejection', () => {
    it('lets the requester withdraw, and no one else: the asset stays active and the request cannot be approved after', async () => {
      const requestId = await requestFor('EQP-0001');

      for (const other of [approver, bystander]) {
        expectErrorBody(await decideRequest(t, requestId, 'withdraw', other), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
      }
      const res = await decideRequest(t, requestId, 'withdraw', requester).expect(200);

      assert.deepEqual([res.body.data.state, res.body.data.decided_by], ['withdrawn', REQUESTER]);
      expectErrorBody(await decideRequest(t, requestId, 'approve', approver), 409, 'DECOMMISSION_REQUEST_NOT_PENDING');
      assert.equal(await statusOf('EQP-0001'), 'active');
      assert.deepEqual(
        (await eventsOf('EQP-0001')).filter(([action]) => action === 'decommission.withdraw'),
        [
          ['decommission.withdraw', 'denied', 'NOT_REQUESTER', APPROVER],
          ['decommission.withdraw', 'denied', 'NOT_REQUESTER', 'officer-10'],
          ['decommission.withdraw', 'allowed', null, REQUESTER],
        ],
      );
    });

    it('lets the named officer reject, and no other officer below clearance 9; a new request may follow', async () => {
      const requestId = await requestFor('EQP-0001');

      for (const other of [requester, t.bearer('officer-8', 8)]) {
        expectErrorBody(await decideRequest(t, requestId, 'reject', other), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
      }
      const res = await decideRequest(t, requestId, 'reject', approver).expect(200);

      assert.deepEqual([res.body.data.state, res.body.data.decided_by], ['rejected', APPROVER]);
      expectErrorBody(await decideRequest(t, requestId, 'approve', approver), 409, 'DECOMMISSION_REQUEST_NOT_PENDING');
      assert.equal(await statusOf('EQP-0001'), 'active');
      await requestFor('EQP-0001');
    });
  });

  describe('races', () => {
    it('20 concurrent approvals by the named officer: exactly one decommission and one approval event', async () => {
      const requestId = await requestFor('FAC-0001');

      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await decideRequest(t, requestId, 'approve', approver)).status));

      assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 409).length], [1, 19]);
      const allowed = (await eventsOf('FAC-0001')).filter(([, outcome]) => outcome === 'allowed').map(([action]) => action);
      assert.deepEqual(allowed, ['decommission.request', 'decommission.approve', 'asset.decommission']);
      assert.equal(await statusOf('FAC-0001'), 'decommissioned');
    });
  });

  describe('the listing', () => {
    it('lists newest first, filters by state, asset and awaiting=me, and pages by cursor', async () => {
      const all = (await listDecommissionRequests(t, 'limit=100', bystander).expect(200)).body.data;
      assert.ok(all.requests.length >= 5);
      assert.deepEqual(all.requests.map((r: { created_at: string }) => r.created_at), all.requests.map((r: { created_at: string }) => r.created_at).sort().reverse());
      assert.equal(all.total_count, all.requests.length);

      const awaiting = (await listDecommissionRequests(t, 'awaiting=me', approver).expect(200)).body.data.requests;
      assert.ok(awaiting.length > 0);
      assert.ok(awaiting.every((r: { state: string; authorized_by: string }) => r.state === 'pending' && r.authorized_by === APPROVER));
      assert.deepEqual((await listDecommissionRequests(t, 'awaiting=me', requester).expect(200)).body.data.requests, []);
      const approved = (await listDecommissionRequests(t, 'state=approved&asset_id=TIE-0002', requester).expect(200)).body.data.requests;
      assert.deepEqual(approved.map((r: { asset_id: string; state: string }) => [r.asset_id, r.state]), [['TIE-0002', 'approved']]);

      const walked = [];
      let page = (await listDecommissionRequests(t, 'limit=2', bystander).expect(200)).body.data;
      walked.push(...page.requests);
      while (page.next_cursor) {
        page = (await listDecommissionRequests(t, `limit=2&cursor=${page.next_cursor}`, bystander).expect(200)).body.data;
        assert.deepEqual([page.total_count, page.page], [null, null]);
        walked.push(...page.requests);
      }
      assert.deepEqual(walked, all.requests);
    });

    it('refuses awaiting with state, another awaiting, and a bad cursor with 400; clearance 6 with 403', async () => {
      expectErrorBody(await listDecommissionRequests(t, 'awaiting=me&state=pending', approver), 400, 'VALIDATION_ERROR', 'awaiting');
      expectErrorBody(await listDecommissionRequests(t, 'awaiting=you', approver), 400, 'VALIDATION_ERROR', 'awaiting');
      expectErrorBody(await listDecommissionRequests(t, 'cursor=nope', approver), 400, 'VALIDATION_ERROR', 'cursor');
      expectErrorBody(await listDecommissionRequests(t, '', t.bearer('lieutenant-6', 6)), 403, 'CLEARANCE_INSUFFICIENT');
    });
  });

  it('leaves an audit trail that verifies intact', async () => {
    assert.equal((await verifyAuditChain(t, bystander).expect(200)).body.data.state, 'intact');
  });
});

describeEachDatabase('decommission requests that expire', (engine) => {
  let t: TestApp;
  let requester: string;
  let approver: string;

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required', DECOMMISSION_APPROVAL_TTL: '1s' } });
    requester = t.bearer(REQUESTER, 7);
    approver = t.bearer(APPROVER, 7);
  });
  after(() => t.close());

  it('refuses the approval of an expired request with 409 DECOMMISSION_REQUEST_EXPIRED and records its expiry once', async () => {
    const { request_id: requestId } = (await decommission(t, 'TIE-0001', requester, ASK).expect(202)).body.data;
    await sleep(1_100);

    expectErrorBody(await decideRequest(t, requestId, 'approve', approver), 409, 'DECOMMISSION_REQUEST_EXPIRED');
    expectErrorBody(await decideRequest(t, requestId, 'withdraw', requester), 409, 'DECOMMISSION_REQUEST_EXPIRED');

    const events = await t.db.selectFrom('audit_events').select(['action', 'outcome', 'reason', 'actor']).where('asset_id', '=', 'TIE-0001').orderBy('id').execute();
    assert.deepEqual(
      events.map(({ action, outcome, reason, actor }) => [action, outcome, reason, actor]),
      [
        ['decommission.request', 'allowed', null, REQUESTER],
        ['decommission.expire', 'allowed', null, APPROVER],
        ['decommission.approve', 'denied', 'DECOMMISSION_REQUEST_EXPIRED', APPROVER],
        ['decommission.withdraw', 'denied', 'DECOMMISSION_REQUEST_EXPIRED', REQUESTER],
      ],
    );
    const request = (await t.http().get(`/v1/decommission-requests/${requestId}`).set('Authorization', requester).expect(200)).body.data;
    assert.deepEqual([request.state, request.decided_at, request.decided_by], ['expired', request.expires_at, null]);
    assert.equal((await t.db.selectFrom('assets').select('status').where('asset_id', '=', 'TIE-0001').executeTakeFirstOrThrow()).status, 'active');
  });

  it('marks overdue requests expired when they are listed, and lets a new request replace one', async () => {
    await decommission(t, 'TIE-0002', requester, ASK).expect(202);
    await sleep(1_100);

    const listed = (await listDecommissionRequests(t, 'asset_id=TIE-0002', approver).expect(200)).body.data.requests;
    assert.deepEqual(listed.map((r: { state: string }) => r.state), ['expired']);
    await decommission(t, 'TIE-0002', requester, ASK).expect(202);
  });

  it('lets a new request replace an overdue one that nothing has read', async () => {
    await decommission(t, 'EQP-0001', requester, ASK).expect(202);
    await sleep(1_100);

    await decommission(t, 'EQP-0001', requester, ASK).expect(202);
    const states = await t.db.selectFrom('decommission_requests').select('state').where('asset_id', '=', 'EQP-0001').orderBy('id').execute();
    assert.deepEqual(states.map(({ state }) => state), ['expired', 'pending']);
  });
});

describeEachDatabase('an approval whose asset is no longer active', (engine) => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(() => t.close());

  it('answers 404 ASSET_ACCESS_DENIED as a direct decommission would, and rolls the approval back: the request stays pending', async () => {
    const requestId = (await decommission(t, 'FAC-0001', t.bearer(REQUESTER, 7), ASK).expect(202)).body.data.request_id;
    // Retired meanwhile outside this request, as under DECOMMISSION_APPROVAL=none.
    await t.db.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', 'FAC-0001').execute();

    expectErrorBody(await decideRequest(t, requestId, 'approve', t.bearer(APPROVER, 7)), 404, 'ASSET_ACCESS_DENIED');

    const request = await t.db.selectFrom('decommission_requests').select(['state', 'decided_by']).where('request_id', '=', requestId).executeTakeFirstOrThrow();
    assert.deepEqual(request, { state: 'pending', decided_by: null });
    const events = await t.db.selectFrom('audit_events').select(['action', 'outcome', 'reason']).orderBy('id').execute();
    assert.deepEqual(
      events.map(({ action, outcome, reason }) => [action, outcome, reason]),
      [
        ['decommission.request', 'allowed', null],
        ['asset.decommission', 'denied', 'ASSET_NOT_FOUND'],
      ],
    );
  });
});

describeEachDatabase('audit:verify on decommissions through approval', (engine) => {
  let t: TestApp;

  const databaseUrl = () => (t.config.database.dialect === 'sqlite' ? `sqlite:${t.config.database.path}` : t.config.database.url);
  const verifyByCommand = () => runScript(SCRIPTS.auditVerify, [], { cwd: tmpdir(), env: { DATABASE_URL: databaseUrl() } });

  /**
   * A decommission through request `requestId` written as the service writes one, its events chained
   * like any (so the chain stays intact), but with only the given steps recorded before it.
   */
  async function decommissionedThrough(assetId: string, requestId: string, steps: [action: string, officer: string][]): Promise<void> {
    const audit = t.app.get(AuditService);
    const decommissionedAt = new Date().toISOString();
    const details = { request_id: requestId, ...ASK };
    for (const [action, officer] of [...steps, ['asset.decommission', APPROVER] as const]) {
      const origin = { requestId: randomUUID(), ip: '127.0.0.1', method: 'POST', path: `/v1/decommission-requests/${requestId}/approve`, assetId };
      await audit.record({ action, outcome: 'allowed', actor: { id: officer, clearance: 7 }, origin, details });
    }
    await t.db
      .updateTable('assets')
      .set({ status: 'decommissioned', decommission_reason: ASK.reason, authorized_by: APPROVER, decommissioned_at: decommissionedAt })
      .where('asset_id', '=', assetId)
      .execute();
  }

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(() => t.close());

  it('passes a decommission requested by one officer and approved by another', async () => {
    const requestId = (await decommission(t, 'TIE-0001', t.bearer(REQUESTER, 7), ASK).expect(202)).body.data.request_id;
    await decideRequest(t, requestId, 'approve', t.bearer(APPROVER, 7)).expect(200);

    const verified = await verifyByCommand();
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^Audit chain intact/);
  });

  it('catches a decommission through a request whose request event is missing, and one approved by its requester', async () => {
    await decommissionedThrough('TIE-0002', randomUUID(), [['decommission.approve', APPROVER]]);
    await decommissionedThrough('EQP-0001', randomUUID(), [['decommission.request', APPROVER], ['decommission.approve', APPROVER]]);

    const { state, disagreeing_assets } = (await verifyAuditChain(t, t.bearer('auditor', 7)).expect(200)).body.data;
    assert.equal(state, 'broken');
    assert.deepEqual(
      disagreeing_assets.map(({ asset_id, fields }: { asset_id: string; fields: string[] }) => `${asset_id}: ${fields.join()}`),
      [
        'EQP-0001: approved_by',
        'TIE-0002: request_event',
      ],
    );
    const verified = await verifyByCommand();
    assert.equal(verified.code, 1);
    assert.match(verified.stderr, /Asset EQP-0001 was decommissioned by event \d+ through a request, but the trail holds no decommission.approve event for its request by an officer other than the requester/);
    assert.match(verified.stderr, /Asset TIE-0002 was decommissioned by event \d+ through a request, but the trail holds no decommission.request event for its request/);
  });
});

describe('decommission requests across two instances on one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  let t: TestApp;
  let other: RunningServer;

  /** A decision sent to the other instance, a real server process. */
  const decideThere = (requestId: string, decision: 'approve' | 'withdraw', officer: string) =>
    fetch(`${other.url}/v1/decommission-requests/${requestId}/${decision}`, { method: 'POST', headers: { Authorization: t.bearer(officer, 7) } });
  const allowedActions = async (assetId: string) =>
    (await t.db.selectFrom('audit_events').select('action').where('asset_id', '=', assetId).where('outcome', '=', 'allowed').orderBy('id').execute()).map(({ action }) => action);
  const stateOf = async (requestId: string) =>
    (await t.db.selectFrom('decommission_requests').select('state').where('request_id', '=', requestId).executeTakeFirstOrThrow()).state;
  const startOther = () => startInstanceBeside(t, { DECOMMISSION_APPROVAL: 'required' });
  /** Locks the chain's head row in a transaction of the test's, which the sequencer's batch must wait for. */
  const holdChainHead = () => {
    let held!: () => void;
    let release!: () => void;
    const locked = new Promise<void>((resolve) => (held = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const transaction = t.db.transaction().execute(async (trx) => {
      await sql`select id from audit_chain_head for update`.execute(trx);
      held();
      await released;
    });
    return { held: locked, release: () => (release(), transaction) };
  };

  before(async () => {
    // This process sequences the audit trail: it starts first.
    t = await startTestApp({ engine: 'postgres', env: { DECOMMISSION_APPROVAL: 'required' } });
    other = await startOther();
  });
  after(async () => {
    await other.stop();
    await t.close();
  });

  it('approves on one instance a request opened on the other, once, however the approvals race across both', async () => {
    const requestId = (await decommission(t, 'TIE-0001', t.bearer(REQUESTER, 7), ASK).expect(202)).body.data.request_id;

    const statuses = await Promise.all(
      Array.from({ length: 10 }, async (_, index) =>
        index % 2 === 0 ? (await decideThere(requestId, 'approve', APPROVER)).status : (await decideRequest(t, requestId, 'approve', t.bearer(APPROVER, 7))).status,
      ),
    );

    assert.deepEqual([statuses.filter((s) => s === 200).length, statuses.filter((s) => s === 409).length], [1, 9]);
    assert.equal(await stateOf(requestId), 'approved');
    assert.deepEqual(await allowedActions('TIE-0001'), ['decommission.request', 'decommission.approve', 'asset.decommission']);
  });

  it('loses nothing when the instance is killed (SIGKILL) between the approval and its answer: the trail holds it whole and verifies', async () => {
    const requestId = (await decommission(t, 'TIE-0002', t.bearer(REQUESTER, 7), ASK).expect(202)).body.data.request_id;

    // The answer waits for the approval's events to be placed by this process's sequencer, which the
    // test holds back by locking the chain's head: the kill lands once the approval has committed, before its answer.
    const head = holdChainHead();
    await head.held;
    const answer = decideThere(requestId, 'approve', APPROVER).then((res) => res.status, () => 'no answer');
    for (const deadline = Date.now() + 10_000; (await stateOf(requestId)) !== 'approved'; ) {
      assert.ok(Date.now() < deadline, 'the approval did not commit within 10 s');
    }
    other.child.kill('SIGKILL');
    assert.equal(await answer, 'no answer');
    await head.release();

    expectErrorBody(await decideRequest(t, requestId, 'approve', t.bearer(APPROVER, 7)), 409, 'DECOMMISSION_REQUEST_NOT_PENDING');
    const asset = await t.db.selectFrom('assets').select(['status', 'authorized_by']).where('asset_id', '=', 'TIE-0002').executeTakeFirstOrThrow();
    assert.deepEqual(asset, { status: 'decommissioned', authorized_by: APPROVER });
    // The killed instance's events wait in the database for their place, which this process's sequencer gives them.
    await waitUntil(async () => (await allowedActions('TIE-0002')).length === 3, "the approval's events were not placed");
    assert.deepEqual(await allowedActions('TIE-0002'), ['decommission.request', 'decommission.approve', 'asset.decommission']);
    assert.equal((await verifyAuditChain(t, t.bearer('auditor', 7)).expect(200)).body.data.state, 'intact');
  });
});
