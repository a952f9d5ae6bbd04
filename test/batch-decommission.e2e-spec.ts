import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import request, { type Response } from 'supertest';
import { AssetsRepository } from '../src/assets/assets.repository';
import { describeEachDatabase } from './support/databases';
import { ACCESS_DENIED, auditEventsOf, decideRequest, decommission, expectErrorBody, listDecommissionRequests, verifyAuditChain } from './support/http';
import type { RunningServer } from './support/processes';
import { startInstanceBeside, startTestApp, type TestApp } from './support/test-app';
import { waitFor } from './support/wait';

const ASK = { reason: 'Squadron retired', authorized_by: 'Grand Moff Tarkin' };
const DECOMMISSION_KEYS = ['asset_id', 'asset_type', 'former_pilot', 'decommission_reason', 'decommissioned_at', 'authorized_by'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeEachDatabase('POST /v1/assets/decommissions', (engine) => {
  let t: TestApp;
  let admiral: string;

  const batch = (body: object, authorization = admiral) => t.http().post('/v1/assets/decommissions').set('Authorization', authorization).send(body);
  const statusesOf = async (assetIds: string[]) =>
    Object.fromEntries((await t.db.selectFrom('assets').select(['asset_id', 'status']).where('asset_id', 'in', assetIds).execute()).map((row) => [row.asset_id, row.status]));
  /** `count` active assets of a squadron of their own: their ids. */
  const squadron = async (prefix: string, count: number) => {
    const assetIds = Array.from({ length: count }, (_, index) => `${prefix}-${String(index + 1).padStart(4, '0')}`);
    await t.db.insertInto('assets').values(assetIds.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-1' }))).execute();
    return assetIds;
  };
  const allActive = (assetIds: string[]) => Object.fromEntries(assetIds.map((assetId) => [assetId, 'active']));

  before(async () => {
    t = await startTestApp({ engine });
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  it('decommissions every asset in one transaction: 200 with the batch id and each decommission in the order given, one event each carrying the batch id', async () => {
    const assetIds = (await squadron('SQA', 3)).reverse();
    const res = await batch({ asset_ids: assetIds, ...ASK }).expect(200);

    assert.equal(res.body.status, 'success');
    assert.equal(res.body.message, '3 assets decommissioned successfully');
    assert.match(res.body.data.batch_id, UUID);
    assert.deepEqual(res.body.data.decommissioned.map((asset: { asset_id: string }) => asset.asset_id), assetIds);
    for (const asset of res.body.data.decommissioned) {
      assert.deepEqual(Object.keys(asset), DECOMMISSION_KEYS);
      assert.equal(asset.decommission_reason, ASK.reason);
    }
    assert.deepEqual(await statusesOf(assetIds), Object.fromEntries(assetIds.map((assetId) => [assetId, 'decommissioned'])));
    for (const assetId of assetIds) {
      const events = await auditEventsOf(t, assetId);
      assert.deepEqual(events.map((event) => [event.action, event.outcome, event.actor]), [['asset.decommission', 'allowed', 'admiral-7']]);
      assert.deepEqual(JSON.parse(events[0].details ?? ''), { batch_id: res.body.data.batch_id, reason: ASK.reason, authorized_by: ASK.authorized_by });
      assert.equal(events[0].request_id, res.headers['x-request-id']);
    }
  });

  it('refuses a caller below clearance 7 with 403 ASSET_ACCESS_DENIED whatever the ids, changing nothing', async () => {
    const assetIds = await squadron('SQB', 2);
    const res = await batch({ asset_ids: [...assetIds, 'nonsense'] }, t.bearer('trooper-6', 6));
    expectErrorBody(res, 403, 'ASSET_ACCESS_DENIED');
    assert.deepEqual(res.body, ACCESS_DENIED);
    assert.deepEqual(await statusesOf(assetIds), allActive(assetIds));
  });

  it('changes nothing when one id is absent: 404 listing every absent and decommissioned id, one denial recorded', async () => {
    const assetIds = await squadron('SQC', 3);
    const res = await batch({ asset_ids: [assetIds[0], 'XYZ-9999', 'OLD-0001', assetIds[1], 'XYZ-9998'], ...ASK });

    expectErrorBody(res, 404, 'BATCH_DECOMMISSION_REFUSED');
    assert.equal(res.body.message, 'Nothing was decommissioned; not found: XYZ-9999,XYZ-9998; already decommissioned: OLD-0001');
    assert.deepEqual(await statusesOf(assetIds), allActive(assetIds));
    for (const assetId of assetIds) {
      assert.deepEqual(await auditEventsOf(t, assetId), []);
    }
    const denial = await t.db.selectFrom('audit_events').selectAll().where('request_id', '=', String(res.headers['x-request-id'])).execute();
    assert.deepEqual(denial.map((event) => [event.action, event.outcome, event.reason, event.asset_id]), [['asset.decommission', 'denied', 'ASSET_NOT_FOUND', null]]);
  });

  it('answers 409 when every asset exists but one is already decommissioned, changing nothing', async () => {
    const assetIds = await squadron('SQD', 2);
    const res = await batch({ asset_ids: [...assetIds, 'OLD-0001'], ...ASK });
    expectErrorBody(res, 409, 'BATCH_DECOMMISSION_REFUSED');
    assert.match(res.body.message, /already decommissioned: OLD-0001$/);
    assert.deepEqual(await statusesOf(assetIds), allActive(assetIds));
  });

  it('refuses with 400 naming asset_ids: none, over 100, an id twice, or an id of another form', async () => {
    const many = Array.from({ length: 101 }, (_, index) => `MNY-${String(index).padStart(4, '0')}`);
    for (const asset_ids of [[], many, ['TIE-0001', 'TIE-0001'], ['tie-1'], 'TIE-0001']) {
      expectErrorBody(await batch({ asset_ids, ...ASK }), 400, 'VALIDATION_ERROR', 'asset_ids');
    }
    expectErrorBody(await batch({ asset_ids: ['TIE-0001'], reason: ' ', authorized_by: 'x' }), 400, 'VALIDATION_ERROR', 'reason');
    assert.equal((await statusesOf(['TIE-0001']))['TIE-0001'], 'active');
  });

  it('replays a batch sent again with its Idempotency-Key, applied once', async () => {
    const assetIds = await squadron('SQE', 2);
    const key = randomUUID();
    const first = await batch({ asset_ids: assetIds, ...ASK }).set('Idempotency-Key', key).expect(200);
    const again = await batch({ asset_ids: assetIds, ...ASK }).set('Idempotency-Key', key).expect(200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal((await auditEventsOf(t, assetIds[0])).length, 1);
  });

  it(
    'locks the rows of concurrent batches in asset_id order, whichever order their plans read them in, so two batches over the same assets cannot deadlock',
    { skip: engine === 'sqlite' && 'PostgreSQL only: SQLite runs one write transaction at a time' },
    async () => {
      // Stored in the other order than their ids': a sequential scan reads DLK-0002 first, the primary key's index DLK-0001 first.
      const assetIds = ['DLK-0002', 'DLK-0001'];
      for (const asset_id of assetIds) {
        await t.db.insertInto('assets').values({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-1' }).execute();
      }
      const repository = t.app.get(AssetsRepository);
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      let held = () => {};
      const holding = new Promise<void>((resolve) => (held = resolve));
      // Another transaction holds DLK-0001: a batch that reads DLK-0002 first takes it and waits there, behind one that reads DLK-0001 first.
      const holder = t.db.transaction().execute(async (trx) => {
        await trx.selectFrom('assets').select('asset_id').where('asset_id', '=', 'DLK-0001').forUpdate().execute();
        held();
        await released;
      });
      await holding;
      const batchReading = (disabled: string[]) =>
        t.db.transaction().execute(async (trx) => {
          for (const setting of disabled) {
            await sql.raw(`set local ${setting} = off`).execute(trx);
          }
          return repository.decommissionAll(trx, assetIds, { decommission_reason: ASK.reason, authorized_by: ASK.authorized_by });
        });
      const waitingOnLocks = (count: number) =>
        waitFor(async () => {
          const { rows } = await sql<{ waiting: string }>`select count(*) as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(t.db);
          return Number(rows[0].waiting) >= count ? true : undefined;
        });
      const byIndex = batchReading(['enable_seqscan', 'enable_bitmapscan']);
      await waitingOnLocks(1);
      const bySequentialScan = batchReading(['enable_indexscan', 'enable_bitmapscan']);
      await waitingOnLocks(2);
      release();
      await holder;
      const outcomes = await Promise.allSettled([byIndex, bySequentialScan]);
      assert.deepEqual(
        outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.length : String(outcome.reason))).sort(),
        [0, 2],
        'one batch decommissions both, the other finds them taken; neither deadlocks',
      );
    },
  );

  describe('50 concurrent batches and DELETEs over overlapping assets, on two instances', () => {
    let beside: RunningServer;

    before(async () => {
      beside = await startInstanceBeside(t, t.config.database.dialect === 'sqlite' ? { DATABASE_URL: `sqlite:${t.config.database.path}` } : {});
    });
    after(() => beside.stop());

    it('decommissions each asset exactly once, and applies every batch whole or not at all', async () => {
      const fleet = await squadron('RCE', 30);
      const servers = [t.app.getHttpServer(), beside.url];
      // Deterministic overlap: batch i names 5 consecutive assets from 3*i, so neighbours share two; every third request is a single DELETE.
      const sends = Array.from({ length: 50 }, (_, i) => {
        const agent = request(servers[i % 2]);
        if (i % 3 === 2) {
          const assetId = fleet[(i * 7) % fleet.length];
          return { assetIds: [assetId], res: agent.delete(`/v1/assets/${assetId}`).set('Authorization', admiral).send(ASK) };
        }
        const assetIds = Array.from({ length: 5 }, (_, k) => fleet[(3 * i + k) % fleet.length]);
        return { assetIds, res: agent.post('/v1/assets/decommissions').set('Authorization', admiral).send({ asset_ids: assetIds, ...ASK }) };
      });
      const answers: { assetIds: string[]; res: Response }[] = await Promise.all(sends.map(async ({ assetIds, res }) => ({ assetIds, res: await res })));

      for (const { res } of answers) {
        assert.ok([200, 404, 409].includes(res.status), `${res.status} ${res.text}`);
      }
      const events = await t.db.selectFrom('audit_events').selectAll().where('asset_id', 'in', fleet).where('outcome', '=', 'allowed').execute();
      const decommissionsOf = new Map<string, number>();
      for (const event of events) {
        decommissionsOf.set(String(event.asset_id), (decommissionsOf.get(String(event.asset_id)) ?? 0) + 1);
      }
      const statuses = await statusesOf(fleet);
      for (const assetId of fleet) {
        assert.equal(decommissionsOf.get(assetId) ?? 0, statuses[assetId] === 'decommissioned' ? 1 : 0, `${assetId} decommissioned once`);
      }
      for (const { assetIds, res } of answers.filter(({ res }) => res.status === 200 && res.body.data.batch_id)) {
        const ofBatch = events.filter((event) => JSON.parse(event.details ?? '{}').batch_id === res.body.data.batch_id).map((event) => event.asset_id);
        assert.deepEqual([...ofBatch].sort(), [...assetIds].sort(), 'a batch applied whole');
      }
      const applied = answers.filter(({ res }) => res.status === 200).flatMap(({ assetIds }) => assetIds);
      assert.ok(answers.some(({ res }) => res.status === 200 && res.body.data.batch_id) && answers.some(({ res }) => res.status === 409), 'batches both applied and refused');
      assert.deepEqual([...applied].sort(), fleet.filter((assetId) => statuses[assetId] === 'decommissioned').sort(), 'only the assets of applied requests changed, each by one');
    });
  });
});

describeEachDatabase('POST /v1/assets/decommissions with DECOMMISSION_APPROVAL=required', (engine) => {
  let t: TestApp;
  /** Officers of clearance 7: the one who asks, the one named to approve. */
  const REQUESTER = 'officer-7';
  const APPROVER = 'officer-8';
  const ASK_APPROVER = { reason: 'Squadron retired', authorized_by: APPROVER };

  const batch = (body: object, requester = REQUESTER) => t.http().post('/v1/assets/decommissions').set('Authorization', t.bearer(requester, 7)).send(body);
  const decide = (requestId: string, decision: 'approve' | 'reject' | 'withdraw', officer: string) => decideRequest(t, requestId, decision, t.bearer(officer, 7));
  const squadron = async (prefix: string, count: number) => {
    const assetIds = Array.from({ length: count }, (_, index) => `${prefix}-${String(index + 1).padStart(4, '0')}`);
    await t.db.insertInto('assets').values(assetIds.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-1' }))).execute();
    return assetIds;
  };
  const statusesOf = async (assetIds: string[]) =>
    Object.fromEntries((await t.db.selectFrom('assets').select(['asset_id', 'status']).where('asset_id', 'in', assetIds).execute()).map((row) => [row.asset_id, row.status]));
  const allActive = (assetIds: string[]) => Object.fromEntries(assetIds.map((assetId) => [assetId, 'active']));
  const requestsHolding = async (assetIds: string[]) =>
    (await t.db.selectFrom('decommission_request_assets').select('request_id').where('asset_id', 'in', assetIds).execute()).map(({ request_id }) => request_id);
  /** A pending batch request by the requester naming the approver: its body. */
  const openBatch = async (assetIds: string[], requester = REQUESTER) => (await batch({ asset_ids: assetIds, ...ASK_APPROVER }, requester).expect(202)).body.data;
  const denialOf = async (res: Response) =>
    (await t.db.selectFrom('audit_events').select(['action', 'outcome', 'reason', 'asset_id']).where('request_id', '=', String(res.headers['x-request-id'])).execute()).map(Object.values);

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required', DECOMMISSION_REQUESTS_PER_OFFICER: '2' } });
  });
  after(() => t.close());

  it('opens one request for the batch: 202 with Location, one request_id, asset_ids in the order given; the assets stay active; a decommission.request event for each', async () => {
    const assetIds = (await squadron('BRA', 3)).reverse();
    const res = await batch({ asset_ids: assetIds, ...ASK_APPROVER }).expect(202);

    const request = res.body.data;
    assert.equal(res.headers.location, `/v1/decommission-requests/${request.request_id}`);
    assert.match(request.request_id, UUID);
    assert.match(request.batch_id, UUID);
    assert.deepEqual(
      [request.asset_id, request.asset_ids, request.kind, request.state, request.requested_by, request.authorized_by],
      [assetIds[0], assetIds, 'decommission', 'pending', REQUESTER, APPROVER],
    );
    assert.deepEqual(await statusesOf(assetIds), allActive(assetIds));
    assert.deepEqual(await requestsHolding(assetIds), [request.request_id, request.request_id, request.request_id]);
    for (const assetId of assetIds) {
      const events = await auditEventsOf(t, assetId);
      assert.deepEqual(events.map((event) => [event.action, event.outcome, event.actor, event.method]), [['decommission.request', 'allowed', REQUESTER, 'POST']]);
      assert.deepEqual(JSON.parse(events[0].details ?? ''), { request_id: request.request_id, reason: ASK_APPROVER.reason, authorized_by: APPROVER });
    }
    assert.deepEqual((await t.http().get(res.headers.location).set('Authorization', t.bearer(APPROVER, 7)).expect(200)).body.data, request);
    await decide(request.request_id, 'withdraw', REQUESTER).expect(200);
  });

  it("decommissions every asset on the named officer's single approval: the batch's body in the request's order, one event each carrying the batch and request ids; a second approval 409", async () => {
    const assetIds = (await squadron('BRB', 3)).reverse();
    const request = await openBatch(assetIds);

    const res = await decide(request.request_id, 'approve', APPROVER).expect(200);

    assert.equal(res.body.message, '3 assets decommissioned successfully');
    assert.equal(res.body.data.batch_id, request.batch_id);
    assert.deepEqual(res.body.data.decommissioned.map((asset: { asset_id: string }) => asset.asset_id), assetIds);
    assert.deepEqual(Object.keys(res.body.data.decommissioned[0]), DECOMMISSION_KEYS);
    assert.deepEqual(await statusesOf(assetIds), Object.fromEntries(assetIds.map((assetId) => [assetId, 'decommissioned'])));
    for (const assetId of assetIds) {
      const events = await auditEventsOf(t, assetId);
      assert.deepEqual(events.map((event) => [event.action, event.outcome, event.actor]), [
        ['decommission.request', 'allowed', REQUESTER],
        ['decommission.approve', 'allowed', APPROVER],
        ['asset.decommission', 'allowed', APPROVER],
      ]);
      assert.deepEqual(JSON.parse(events[2].details ?? ''), { request_id: request.request_id, batch_id: request.batch_id, reason: ASK_APPROVER.reason, authorized_by: APPROVER });
    }
    const approved = (await t.http().get(`/v1/decommission-requests/${request.request_id}`).set('Authorization', t.bearer(APPROVER, 7)).expect(200)).body.data;
    assert.deepEqual([approved.state, approved.decided_by, approved.asset_ids], ['approved', APPROVER, assetIds]);
    expectErrorBody(await decide(request.request_id, 'approve', APPROVER), 409, 'DECOMMISSION_REQUEST_NOT_PENDING');
    expectErrorBody(await decide(request.request_id, 'approve', REQUESTER), 403, 'DECOMMISSION_REQUEST_FORBIDDEN');
    assert.equal((await verifyAuditChain(t, t.bearer('admiral-9', 9)).expect(200)).body.data.state, 'intact');
  });

  it('refuses a batch naming an asset in another pending request: 409 naming that request, nothing opened, the refusal recorded', async () => {
    const assetIds = await squadron('BRC', 4);
    const held = await openBatch(assetIds.slice(0, 2));

    const res = await batch({ asset_ids: [assetIds[3], assetIds[1], assetIds[2], assetIds[0]], ...ASK_APPROVER }, 'officer-c');

    expectErrorBody(res, 409, 'BATCH_DECOMMISSION_REFUSED');
    assert.equal(res.body.message, `No request was opened; in another pending request: ${assetIds[1]},${assetIds[0]} (${held.request_id})`);
    assert.deepEqual(await requestsHolding(assetIds), [held.request_id, held.request_id]);
    assert.deepEqual(await t.db.selectFrom('decommission_requests').select('request_id').where('requested_by', '=', 'officer-c').execute(), []);
    assert.deepEqual(await denialOf(res), [['asset.decommission', 'denied', 'DECOMMISSION_REQUEST_PENDING', null]]);
    await decide(held.request_id, 'withdraw', REQUESTER).expect(200);
  });

  it('refuses a batch naming an absent asset with 404 listing every offending id by why, opening nothing', async () => {
    const assetIds = await squadron('BRD', 3);
    const held = await openBatch([assetIds[2]]);

    const res = await batch({ asset_ids: [assetIds[0], 'XYZ-9999', 'OLD-0001', assetIds[2], 'XYZ-9998', assetIds[1]], ...ASK_APPROVER }, 'officer-d');

    expectErrorBody(res, 404, 'BATCH_DECOMMISSION_REFUSED');
    assert.equal(res.body.message, `No request was opened; not found: XYZ-9999,XYZ-9998; already decommissioned: OLD-0001; in another pending request: ${assetIds[2]} (${held.request_id})`);
    assert.deepEqual(await requestsHolding(assetIds), [held.request_id]);
    assert.deepEqual(await denialOf(res), [['asset.decommission', 'denied', 'ASSET_NOT_FOUND', null]]);
    await decide(held.request_id, 'withdraw', REQUESTER).expect(200);
  });

  it('answers a single DELETE on an asset of a pending batch request 409 DECOMMISSION_REQUEST_PENDING naming the batch request', async () => {
    const assetIds = await squadron('BRE', 2);
    const held = await openBatch(assetIds);

    const res = await decommission(t, assetIds[1], t.bearer('officer-e', 7), ASK_APPROVER);

    expectErrorBody(res, 409, 'DECOMMISSION_REQUEST_PENDING');
    assert.equal(res.body.message, `Asset ${assetIds[1]} already has a pending decommission request: ${held.request_id}`);
    assert.deepEqual(await requestsHolding(assetIds), [held.request_id, held.request_id]);
    await decide(held.request_id, 'reject', APPROVER).expect(200);
  });

  it('lets go of the assets when the request is rejected, withdrawn or expires: a new request may hold them', async () => {
    const assetIds = await squadron('BRF', 2);
    for (const end of ['reject', 'withdraw', 'expire'] as const) {
      const request = await openBatch(assetIds);
      if (end === 'expire') {
        await t.db.updateTable('decommission_requests').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('request_id', '=', request.request_id).execute();
      } else {
        const ended = (await decide(request.request_id, end, end === 'reject' ? APPROVER : REQUESTER).expect(200)).body.data;
        assert.deepEqual([ended.state, ended.asset_ids], [`${end}${end === 'reject' ? 'ed' : 'n'}`, assetIds]);
      }
      // A single request for one of them, then the batch again once it is gone.
      const single = (await decommission(t, assetIds[0], t.bearer('officer-f', 7), ASK_APPROVER).expect(202)).body.data;
      await decide(single.request_id, 'withdraw', 'officer-f').expect(200);
    }
    const request = await openBatch(assetIds);
    const states = await t.db.selectFrom('decommission_requests').select('state').where('requested_by', '=', REQUESTER).where('asset_id', '=', assetIds[0]).orderBy('id').execute();
    assert.deepEqual(states.map(({ state }) => state), ['rejected', 'withdrawn', 'expired', 'pending']);
    for (const assetId of assetIds) {
      const expiries = (await auditEventsOf(t, assetId)).filter((event) => event.action === 'decommission.expire');
      assert.equal(expiries.length, 1, `${assetId}'s expiry recorded once`);
    }
    await decide(request.request_id, 'withdraw', REQUESTER).expect(200);
  });

  it('lists a batch request under the asset_id of each of its assets, and under awaiting=me for the named officer', async () => {
    const assetIds = await squadron('BRG', 3);
    const request = await openBatch(assetIds);
    for (const assetId of assetIds) {
      const listed = (await listDecommissionRequests(t, `asset_id=${assetId}`, t.bearer('officer-g', 7)).expect(200)).body;
      assert.deepEqual(listed.data.requests, [request]);
      assert.equal(listed.data.total_count, 1);
    }
    const awaiting = (await listDecommissionRequests(t, 'awaiting=me', t.bearer(APPROVER, 7)).expect(200)).body.data.requests;
    assert.deepEqual(awaiting.map((r: { request_id: string }) => r.request_id), [request.request_id]);
    await decide(request.request_id, 'withdraw', REQUESTER).expect(200);
  });

  it('refuses authorized_by naming the caller (422) and counts a batch as one request against the officer\'s limit (429 past it)', async () => {
    const assetIds = await squadron('BRH', 5);
    expectErrorBody(await batch({ asset_ids: assetIds, reason: 'x', authorized_by: 'officer-h' }, 'officer-h'), 422, 'AUTHORIZED_BY_IS_CALLER');
    const first = await openBatch(assetIds.slice(0, 3), 'officer-h');
    const second = await openBatch([assetIds[3]], 'officer-h');
    const over = await batch({ asset_ids: [assetIds[4]], ...ASK_APPROVER }, 'officer-h');
    expectErrorBody(over, 429, 'DECOMMISSION_REQUEST_LIMIT');
    assert.deepEqual(await denialOf(over), [['asset.decommission', 'denied', 'DECOMMISSION_REQUEST_LIMIT', null]]);
    await decide(first.request_id, 'withdraw', 'officer-h').expect(200);
    await decide(second.request_id, 'withdraw', 'officer-h').expect(200);
  });

  it('fails the approval whole when an asset changed meanwhile outside the requests: 409 listing it, nothing decommissioned, the request still pending', async () => {
    const assetIds = await squadron('BRI', 3);
    const request = await openBatch(assetIds);
    // As a record import would: the asset decommissioned by a path that takes no request.
    await t.db.updateTable('assets').set({ status: 'decommissioned', decommission_reason: 'Imported', decommissioned_at: new Date().toISOString(), authorized_by: 'import' }).where('asset_id', '=', assetIds[1]).execute();

    const res = await decide(request.request_id, 'approve', APPROVER);

    expectErrorBody(res, 409, 'BATCH_DECOMMISSION_REFUSED');
    assert.equal(res.body.message, `Nothing was decommissioned; already decommissioned: ${assetIds[1]}`);
    assert.deepEqual(await statusesOf([assetIds[0], assetIds[2]]), allActive([assetIds[0], assetIds[2]]));
    assert.equal((await t.db.selectFrom('decommission_requests').select('state').where('request_id', '=', request.request_id).executeTakeFirstOrThrow()).state, 'pending');
    assert.deepEqual(await denialOf(res), [['asset.decommission', 'denied', 'ASSET_NOT_ACTIVE', null]]);
    assert.deepEqual((await auditEventsOf(t, assetIds[0])).map((event) => event.action), ['decommission.request']);
    await decide(request.request_id, 'withdraw', REQUESTER).expect(200);
  });

  it('keeps the 202 of a batch sent with an Idempotency-Key and replays it: one request opened', async () => {
    const assetIds = await squadron('BRJ', 2);
    const key = randomUUID();
    const first = await batch({ asset_ids: assetIds, ...ASK_APPROVER }, 'officer-j').set('Idempotency-Key', key).expect(202);
    const again = await batch({ asset_ids: assetIds, ...ASK_APPROVER }, 'officer-j').set('Idempotency-Key', key).expect(202);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers.location, first.headers.location);
    assert.deepEqual(again.body, first.body);
    assert.deepEqual(await requestsHolding(assetIds), [first.body.data.request_id, first.body.data.request_id]);
    await decide(first.body.data.request_id, 'withdraw', 'officer-j').expect(200);
  });

  // On SQLite the two instances are two processes on one file.
  describe('60 concurrent batch requests and single requests over overlapping assets, on two instances', () => {
    let beside: RunningServer;

    before(async () => {
      beside = await startInstanceBeside(t, {
        DECOMMISSION_APPROVAL: 'required',
        ...(t.config.database.dialect === 'sqlite' ? { DATABASE_URL: `sqlite:${t.config.database.path}` } : {}),
      });
    });
    after(() => beside.stop());

    it('holds no asset in two pending requests, and opens every request whole or not at all', async () => {
      const fleet = await squadron('RCR', 30);
      const servers = [t.app.getHttpServer(), beside.url];
      // Each request its own officer (the per-officer limit is not under test); batch i names 4 assets from 3*i, so neighbours share one; every third is a DELETE.
      const sends = Array.from({ length: 60 }, (_, i) => {
        const agent = request(servers[i % 2]);
        const officer = t.bearer(`racer-${i}`, 7);
        if (i % 3 === 2) {
          const assetId = fleet[(i * 7) % fleet.length];
          return { assetIds: [assetId], res: agent.delete(`/v1/assets/${assetId}`).set('Authorization', officer).send(ASK_APPROVER) };
        }
        const assetIds = Array.from({ length: 4 }, (_, k) => fleet[(3 * i + k) % fleet.length]);
        return { assetIds, res: agent.post('/v1/assets/decommissions').set('Authorization', officer).send({ asset_ids: assetIds, ...ASK_APPROVER }) };
      });
      const answers: { assetIds: string[]; res: Response }[] = await Promise.all(sends.map(async ({ assetIds, res }) => ({ assetIds, res: await res })));

      for (const { res } of answers) {
        assert.ok([202, 409].includes(res.status), `${res.status} ${res.text}`);
      }
      const opened = answers.filter(({ res }) => res.status === 202);
      const held = await t.db.selectFrom('decommission_request_assets').select(['asset_id', 'request_id']).where('asset_id', 'in', fleet).where('pending', '=', 1).execute();
      const holders = new Map<string, string[]>();
      for (const { asset_id, request_id } of held) {
        holders.set(asset_id, [...(holders.get(asset_id) ?? []), request_id]);
      }
      for (const [assetId, requestIds] of holders) {
        assert.equal(requestIds.length, 1, `${assetId} in one pending request`);
      }
      for (const { assetIds, res } of opened) {
        assert.deepEqual(res.body.data.asset_ids, assetIds);
        assert.deepEqual(assetIds.map((assetId) => holders.get(assetId)?.[0]), assetIds.map(() => res.body.data.request_id), 'a request holds all its assets');
      }
      assert.equal(held.length, opened.flatMap(({ assetIds }) => assetIds).length, 'only opened requests hold assets');
      const requests = await t.db.selectFrom('decommission_requests').select('request_id').where('requested_by', 'like', 'racer-%').execute();
      assert.equal(requests.length, opened.length, 'a refused request left no row');
      assert.ok(opened.some(({ assetIds }) => assetIds.length > 1) && answers.some(({ res }) => res.status === 409), 'batches both opened and refused');
      assert.deepEqual(await statusesOf(fleet), allActive(fleet));
    });
  });
});
