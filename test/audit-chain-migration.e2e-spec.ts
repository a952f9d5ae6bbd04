import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { Kysely, type Migration, Migrator } from 'kysely';
import { AuditChainVerifier } from '../src/audit/trail/audit-chain.verifier';
import { nodeKey, TrailRepository } from '../src/audit/trail/trail.repository';
import { AuditWriteRepository } from '../src/audit/write/audit-write.repository';
import { eventLeafHash } from '../src/audit/trail/audit-chain';
import { inclusionPlan, nodeHash } from '../src/audit/trail/merkle';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB, migrateToLatest } from '../src/database';
import { currentSchema } from '../src/database';
import * as initial from '../src/database/migrations/001-initial';
import * as withoutPairs from '../src/database/migrations/008-audit-tree-without-pairs';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';

/** Events as release 001 wrote them: ids with gaps (rolled-back inserts), times not always in id order. */
const OLD_EVENTS = [
  { id: 1, occurred_at: '2026-11-20T10:00:00.000Z', request_id: 'old-1' },
  { id: 2, occurred_at: '2026-11-20T10:00:02.000Z', request_id: 'old-2' },
  { id: 5, occurred_at: '2030-01-01T00:00:00.000Z', request_id: 'old-5' },
  { id: 9, occurred_at: '2026-11-20T10:00:01.000Z', request_id: 'old-9' },
].map((event) => ({ ...event, action: 'auth.authenticate', outcome: 'denied' as const, reason: 'TOKEN_MISSING', method: 'GET', path: '/v1/fleet/star-destroyers', ip: '10.0.0.1' }));

describeEachDatabase('migration 002-audit-chain on a database with events', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let db: Kysely<DB>;
  let repository: TrailRepository;
  let writes: AuditWriteRepository;
  const verify = () => new AuditChainVerifier(repository).verify();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-chain-migration-'));
    database = await createTestDatabase(engine, dir);
    db = createDatabase(loadAppConfig({ DATABASE_URL: database.url, JWT_SECRET: 'x'.repeat(32) }, dir).database);
    const release1: Record<string, Migration> = { '001-initial': initial };
    const migrator = new Migrator({ db, provider: { getMigrations: async () => release1 }, migrationTableSchema: await currentSchema(db) });
    assert.equal((await migrator.migrateToLatest()).error, undefined);
    await db.insertInto('audit_events').values(OLD_EVENTS as never).execute();
    assert.deepEqual(await migrateToLatest(db), ['002-audit-chain', '003-vessel-counts', '004-audit-pending', '005-audit-tree', '006-audit-query-indexes', '007-decommission-requests', '008-audit-tree-without-pairs', '009-decommission-request-kinds', '010-decommission-policy', '011-imported-decommissions', '012-delivery-feeds', '013-idempotency-keys', '014-audit-cosignatures', '015-decommission-request-assets', '016-idempotency-keys-answers-only', '017-audit-asset-ids-bytewise']);
    repository = new TrailRepository(db);
    writes = new AuditWriteRepository(db);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('chains the events already present in id order, so the trail verifies at once', async () => {
    const events = await db.selectFrom('audit_events').selectAll().orderBy('id').execute();
    assert.deepEqual(
      events.map((event) => event.request_id),
      ['old-1', 'old-2', 'old-5', 'old-9'],
    );
    assert.equal(events[0].prev_hash, '0'.repeat(64));
    for (let i = 1; i < events.length; i++) {
      assert.equal(events[i].prev_hash, events[i - 1].hash);
    }
    assert.deepEqual(await verify(), { state: 'intact', length: 4, head_hash: events[3].hash });
  });

  it('builds the Merkle tree of those events (migrations 005 and 008): their leaf hashes and positions, the right edge beside the head', async () => {
    const events = await db.selectFrom('audit_events').selectAll().orderBy('id').execute();
    assert.deepEqual(
      events.map((event) => [event.leaf_index, event.leaf_hash, event.details]),
      events.map((event, index) => [index, eventLeafHash(event), null]),
    );
    const [l0, l1, l2, l3] = events.map((event) => event.leaf_hash);
    const head = await db.selectFrom('audit_chain_head').select('frontier').executeTakeFirstOrThrow();
    assert.equal(head.frontier, nodeHash(nodeHash(l0, l1), nodeHash(l2, l3)));
    const nodes = await db.selectFrom('audit_tree_nodes').select(['level', 'node_index', 'hash']).orderBy('level').orderBy('node_index').execute();
    assert.deepEqual(
      nodes.map((node) => [node.level, Number(node.node_index), node.hash]),
      [[2, 0, head.frontier]],
      'no pair of leaves',
    );
  });

  it('proves inclusion from the leaves where 008 dropped the pairs, and its down stores the pairs again', async () => {
    const [l0, l1, l2, l3] = (await db.selectFrom('audit_events').select('leaf_hash').orderBy('id').execute()).map((event) => event.leaf_hash);
    const proof = inclusionPlan(1, 4);
    const found = await repository.findTreeNodes(proof.nodes);
    assert.deepEqual(
      proof.hashes((node) => found.get(nodeKey(node)) as string),
      [l0, nodeHash(l2, l3)],
    );
    const pairs = () => db.selectFrom('audit_tree_nodes').select(['node_index', 'hash']).where('level', '=', 1).orderBy('node_index').execute();
    await withoutPairs.down(db);
    assert.deepEqual(
      (await pairs()).map((node) => [Number(node.node_index), node.hash]),
      [
        [0, nodeHash(l0, l1)],
        [1, nodeHash(l2, l3)],
      ],
    );
    await withoutPairs.up(db);
    assert.deepEqual(await pairs(), []);
  });

  it('keeps the recorded times, and appends after the latest of them', async () => {
    const event = { ...OLD_EVENTS[0], request_id: 'new-1', actor: null, actor_clearance: null, asset_id: null, details: null };
    await db.transaction().execute((trx) => writes.appendToChain(trx, event));
    const newest = await db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.deepEqual([newest.id, newest.request_id, newest.occurred_at], [10, 'new-1', '2030-01-01T00:00:00.000Z']);
    const result = await verify();
    assert.deepEqual(result, { state: 'intact', length: 5, head_hash: newest.hash });
  });
});
