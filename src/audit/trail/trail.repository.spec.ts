import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { CompiledQuery, createQueryId, type Kysely, type KyselyPlugin, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import { createTestDatabase, testEngines } from '../../../test/support/databases';
import { createDatabase, type DB, migrateToLatest } from '../../database';
import { TrailRepository } from './trail.repository';

const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };

/** Keeps the last query run through it, to be planned again with EXPLAIN. */
class LastQuery implements KyselyPlugin {
  node?: RootOperationNode;

  transformQuery({ node }: { node: RootOperationNode }): RootOperationNode {
    this.node = node;
    return node;
  }

  transformResult({ result }: { result: QueryResult<UnknownRow> }): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(result);
  }
}

/** 300 assets, every third decommissioned, each with its allowed decommission event and a refusal before it. */
async function seed(db: Kysely<DB>): Promise<void> {
  const assets = Array.from({ length: 300 }, (_, n) => ({
    asset_id: `TIE-${String(n).padStart(4, '0')}`,
    asset_type: 'vehicle',
    former_pilot: 'TK-421',
    status: n % 3 === 0 ? ('decommissioned' as const) : ('active' as const),
  }));
  await db.insertInto('assets').values(assets).execute();
  // Not chained: the plan reads no hash.
  const event = (assetId: string, outcome: 'allowed' | 'denied') => ({
    prev_hash: '',
    hash: '',
    leaf_hash: '',
    occurred_at: '2026-11-29T00:00:00.000Z',
    action: 'asset.decommission',
    outcome,
    asset_id: assetId,
    request_id: 'r',
    method: 'DELETE',
    path: `/v1/assets/${assetId}`,
  });
  const decommissioned = assets.filter(({ status }) => status === 'decommissioned');
  const events = decommissioned.flatMap(({ asset_id }) => [event(asset_id, 'denied'), event(asset_id, 'allowed')]);
  await db
    .insertInto('audit_events')
    .values(events.map((fields, index) => ({ id: index + 1, leaf_index: index, ...fields })))
    .execute();
}

/** The plan of `captured`'s last query, as the engine explains it, one line a step. */
async function planOf(db: Kysely<DB>, captured: LastQuery, explain: string, column: string): Promise<string> {
  const query = db.getExecutor().compileQuery(captured.node as RootOperationNode, createQueryId());
  const { rows } = await db.executeQuery<Record<string, string>>(CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]));
  return rows.map((row) => row[column]).join('\n');
}

/**
 * The verifier's cross-checks read each asset's events by the asset's own id. Their plans must find the
 * events through the asset index, for a page to cost its own assets and not the rest of the trail, with
 * the planner's statistics or without (a read-only database cannot refresh them).
 */
const CROSS_CHECKS = [
  { name: 'findLatestStatusChanges', read: (trail: TrailRepository) => trail.findLatestStatusChanges('', 1_000), rows: 100 },
  { name: 'findDecommissionedWithoutEvent', read: (trail: TrailRepository) => trail.findDecommissionedWithoutEvent('', 1_000), rows: 0 },
  { name: 'findRequestSteps', read: (trail: TrailRepository) => trail.findRequestSteps('TIE-0000'), rows: 0 },
];

for (const { name, read, rows } of CROSS_CHECKS) {
  describe(`TrailRepository.${name}`, () => {
    it('SQLite, without statistics: looks each asset up in the asset index, grouping nothing', async () => {
      const captured = new LastQuery();
      const db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
      try {
        await migrateToLatest(db);
        await seed(db);
        assert.equal((await read(new TrailRepository(db.withPlugin(captured)))).length, rows);
        const plan = await planOf(db, captured, 'explain query plan', 'detail');
        assert.match(plan, /SEARCH \S+ USING INDEX audit_events_asset_idx \(asset_id=\?\)/, plan);
        assert.doesNotMatch(plan, /GROUP BY|SCAN audit_events|audit_events_(action|outcome)_idx/, plan);
      } finally {
        await db.destroy();
      }
    });

    it('PostgreSQL: looks each asset up in the asset index, whose collation the comparison shares', { skip: !testEngines().includes('postgres') && 'needs TEST_DATABASE_URL' }, async () => {
      const database = await createTestDatabase('postgres', tmpdir());
      const url = new URL(database.url);
      url.searchParams.set('options', `${url.searchParams.get('options')} -c enable_seqscan=off`);
      const db = createDatabase({ dialect: 'postgres', url: url.toString(), poolSize: 1, timeouts: TIMEOUTS });
      try {
        await migrateToLatest(db);
        await seed(db);
        const captured = new LastQuery();
        assert.equal((await read(new TrailRepository(db.withPlugin(captured)))).length, rows);
        // Sequential scans are turned off, so a plan that still scans has no index it can use.
        const plan = await planOf(db, captured, 'explain', 'QUERY PLAN');
        assert.match(plan, /Index (Only )?Scan( Backward)? using audit_events_asset_idx on audit_events\b/, plan);
        assert.doesNotMatch(plan, /Seq Scan/, plan);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
