import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { type AuditEventRow, createDatabase, type DB, migrateToLatest, TransactionRunner } from '../../database';
import { appendLeaves, type ChainEnd, decodeFrontier, endAfter, type Frontier, frontierRoot, nextEvent, nodeKey, rootPlan, STORED_EVENT_COLUMNS, type StoredNode, TrailRepository } from '../trail';
import { AuditWriteRepository } from './audit-write.repository';

const event = (requestId: string) => ({
  action: 'asset.decommission',
  outcome: 'denied' as const,
  reason: 'INSUFFICIENT_CLEARANCE',
  actor: 'cadet-3',
  actor_clearance: 3,
  asset_id: 'TIE-0001',
  request_id: requestId,
  ip: '10.0.0.7',
  method: 'DELETE',
  path: '/v1/assets/TIE-0001',
  details: null,
});

describe('AuditWriteRepository.appendToChain in commit groups (SQLite)', () => {
  let db: Kysely<DB>;
  let repository: AuditWriteRepository;
  let trail: TrailRepository;
  let transactions: TransactionRunner;

  before(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    repository = new AuditWriteRepository(db);
    trail = new TrailRepository(db);
    transactions = new TransactionRunner(db);
  });
  after(() => db.destroy());

  /** Appends in one commit group: the runs asked for in one turn of the event loop. */
  const group = (requestIds: string[], refused: string[] = []) =>
    Promise.allSettled(
      requestIds.map((requestId) =>
        transactions.run(async (trx) => {
          await repository.appendToChain(trx, event(requestId));
          if (refused.includes(requestId)) {
            throw new Error(`${requestId} refused`);
          }
        }),
      ),
    );

  const stored = async () => {
    const [events, nodes, head] = await Promise.all([
      db.selectFrom('audit_events').select(['request_id', 'leaf_index', 'leaf_hash']).orderBy('id').execute(),
      db.selectFrom('audit_tree_nodes').select(['level', 'node_index', 'hash']).orderBy('level').orderBy('node_index').execute(),
      db.selectFrom('audit_chain_head').selectAll().executeTakeFirstOrThrow(),
    ]);
    return { events, nodes: nodes.map(({ level, node_index, hash }) => ({ level, index: Number(node_index), hash })), head };
  };

  const pick = (row: AuditEventRow) => Object.fromEntries(STORED_EVENT_COLUMNS.map((column) => [column, row[column]]));

  /** The stored tree, head and root are those that the stored events' leaves, appended one at a time, grow. */
  const assertTreeGrownOneByOne = async () => {
    const { events, nodes, head } = await stored();
    assert.deepEqual(
      events.map((row) => row.leaf_index),
      events.map((_, index) => index),
    );
    let oneByOne: Frontier = { size: 0, hashes: [] };
    const completed: StoredNode[] = [];
    for (const { leaf_hash } of events) {
      const appended = appendLeaves(oneByOne, [leaf_hash]);
      oneByOne = appended.frontier;
      completed.push(...appended.nodes);
    }
    const byPlace = (a: StoredNode, b: StoredNode) => a.level - b.level || a.index - b.index;
    assert.deepEqual(nodes, completed.sort(byPlace));
    assert.deepEqual([head.event_count, decodeFrontier(head.frontier)], [events.length, oneByOne.hashes]);
    const plan = rootPlan(events.length);
    const found = await trail.findTreeNodes(plan.nodes);
    assert.deepEqual(plan.hashes((node) => found.get(nodeKey(node)) as string), [frontierRoot(oneByOne.hashes)]);
  };

  it('grows, group by group, the tree that one append at a time grows, without the appends that rolled back', async () => {
    let n = 0;
    const ids = (count: number) => Array.from({ length: count }, () => `event-${n++}`);
    for (const [count, refusedAt] of [[1], [5, 2], [13], [18, 0], [1], [2, 1]]) {
      const requestIds = ids(count);
      const refused = refusedAt === undefined ? [] : [requestIds[refusedAt]];
      const results = await group(requestIds, refused);
      assert.deepEqual(
        results.map((result) => result.status),
        requestIds.map((requestId) => (refused.includes(requestId) ? 'rejected' : 'fulfilled')),
      );
    }
    assert.equal((await stored()).events.length, 37);
    await assertTreeGrownOneByOne();
  });

  it('appends several events in one call as as many single appends would: consecutive places in the order given, the same chain, the same tree', async () => {
    const before = await stored();
    const results = await Promise.allSettled([
      transactions.run((trx) => repository.appendToChain(trx, event('single-1'))),
      transactions.run((trx) => repository.appendAllToChain(trx, ['many-1', 'many-2', 'many-3'].map(event))),
      transactions.run(async (trx) => {
        await repository.appendAllToChain(trx, ['undone-1', 'undone-2'].map(event));
        throw new Error('refused');
      }),
      transactions.run((trx) => repository.appendAllToChain(trx, ['many-4', 'many-5', 'many-6', 'many-7', 'many-8'].map(event))),
    ]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    const appended = await db.selectFrom('audit_events').selectAll().where('id', '>', before.head.last_event_id).orderBy('id').execute();
    assert.deepEqual(
      appended.map((row) => row.request_id),
      ['single-1', 'many-1', 'many-2', 'many-3', 'many-4', 'many-5', 'many-6', 'many-7', 'many-8'],
    );
    // Each stored event is the one a single append would chain after the one before it, at its time.
    let end: ChainEnd = before.head;
    for (const row of appended) {
      const single = nextEvent(end, row, new Date(row.occurred_at));
      assert.deepEqual(pick(row), pick(single));
      end = endAfter(end, single);
    }
    await assertTreeGrownOneByOne();
  });

  it('fails every decision of a group whose tree cannot grow, and keeps none of its events', async () => {
    const before = await stored();
    // One of any four leaves in a row completes the four leaves ending with it, stored already: that insert fails at the group's end.
    await db.insertInto('audit_tree_nodes').values({ level: 2, node_index: Math.floor(before.head.event_count / 4), hash: 'planted' }).execute();
    const results = await group(['doomed-1', 'doomed-2', 'doomed-3', 'doomed-4']);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected', 'rejected', 'rejected'],
    );
    await db.deleteFrom('audit_tree_nodes').where('hash', '=', 'planted').execute();
    assert.deepEqual(await stored(), before);
    await group(['after']);
    assert.equal((await stored()).head.event_count, before.head.event_count + 1);
  });

  it('fails a group rather than grow the tree from a frontier of another size', async () => {
    const before = await stored();
    await db.updateTable('audit_chain_head').set({ frontier: '' }).execute();
    const results = await group(['misplaced']);
    assert.match(String((results[0] as PromiseRejectedResult).reason), /frontier is not that of the \d+ leaves/);
    await db.updateTable('audit_chain_head').set({ frontier: before.head.frontier }).execute();
    assert.deepEqual(await stored(), before);
  });
});
