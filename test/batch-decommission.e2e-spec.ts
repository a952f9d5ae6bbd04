import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import request, { type Response } from 'supertest';
import { AssetsRepository } from '../src/assets/assets.repository';
import { describeEachDatabase } from './support/databases';
import { ACCESS_DENIED, auditEventsOf, expectErrorBody } from './support/http';
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

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(() => t.close());

  it('refuses the batch whole with 409 BATCH_NEEDS_SINGLE_REQUESTS: no asset decommissioned without its second officer, no request opened', async () => {
    const res = await t.http().post('/v1/assets/decommissions').set('Authorization', t.bearer('officer-7', 7)).send({ asset_ids: ['TIE-0001', 'TIE-0002'], ...ASK });
    expectErrorBody(res, 409, 'BATCH_NEEDS_SINGLE_REQUESTS');
    assert.deepEqual((await t.db.selectFrom('assets').select('status').where('asset_id', 'in', ['TIE-0001', 'TIE-0002']).execute()).map((row) => row.status), ['active', 'active']);
    assert.equal((await t.db.selectFrom('decommission_requests').selectAll().execute()).length, 0);
  });
});
