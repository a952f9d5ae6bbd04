import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { CompiledQuery, Kysely, type KyselyPlugin, type Migration, Migrator, sql } from 'kysely';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB, migrateToLatest, SECTORS } from '../src/database';
import { currentSchema } from '../src/database';
import * as initial from '../src/database/migrations/001-initial';
import * as auditChain from '../src/database/migrations/002-audit-chain';
import { FleetRepository } from '../src/fleet/fleet.repository';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { vesselRecord } from './support/fixtures';

/** Vessels already there when migration 003 runs: 3 Outer Rim, 1 Mid Rim. */
const EXISTING = [
  vesselRecord('OLD-1'),
  vesselRecord('OLD-2'),
  vesselRecord('OLD-3'),
  vesselRecord('OLD-4', { sector: 'Mid Rim' }),
];

describeEachDatabase('vessel counts and data version kept by triggers', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let db: Kysely<DB>;
  let fleet: FleetRepository;

  /** The triggers' counts beside COUNT(*), for every sector and the whole fleet. */
  async function assertCountsExact(context: string): Promise<void> {
    const counted = await db.selectFrom('vessels').select(['sector', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('sector').execute();
    const actual = new Map(counted.map(({ sector, n }) => [sector, Number(n)]));
    for (const sector of SECTORS) {
      assert.equal((await fleet.readState(sector)).total, actual.get(sector) ?? 0, `${context}: ${sector}`);
    }
    const all = [...actual.values()].reduce((sum, n) => sum + n, 0);
    assert.equal((await fleet.readState(undefined)).total, all, `${context}: all`);
  }

  /** Runs the write and returns how far it moved the data version. */
  async function versionStep(write: () => Promise<unknown>): Promise<number> {
    const before = BigInt((await fleet.readState(undefined)).version);
    await write();
    return Number(BigInt((await fleet.readState(undefined)).version) - before);
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-counts-'));
    database = await createTestDatabase(engine, dir);
    db = createDatabase(loadAppConfig({ DATABASE_URL: database.url, JWT_SECRET: 'x'.repeat(32) }, dir).database);
    const release2: Record<string, Migration> = { '001-initial': initial, '002-audit-chain': auditChain };
    const migrator = new Migrator({ db, provider: { getMigrations: async () => release2 }, migrationTableSchema: await currentSchema(db) });
    assert.equal((await migrator.migrateToLatest()).error, undefined);
    await db.insertInto('vessels').values(EXISTING).execute();
    assert.deepEqual(await migrateToLatest(db), ['003-vessel-counts', '004-audit-pending', '005-audit-tree', '006-audit-query-indexes', '007-decommission-requests', '008-audit-tree-without-pairs', '009-decommission-request-kinds', '010-decommission-policy', '011-imported-decommissions', '012-delivery-feeds', '013-idempotency-keys', '014-audit-cosignatures', '015-decommission-request-assets', '016-idempotency-keys-answers-only', '017-audit-asset-ids-bytewise']);
    fleet = new FleetRepository(db);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the vessels a database already holds when migration 003 runs', async () => {
    assert.equal((await fleet.readState('Outer Rim')).total, 3);
    assert.equal((await fleet.readState('Mid Rim')).total, 1);
    assert.equal((await fleet.readState('Core Worlds')).total, 0);
    assert.equal((await fleet.readState(undefined)).total, 4);
  });

  it('stays exact through inserts, upserts that add, rewrite or move vessels, updates and deletes, each raising the version', async () => {
    const writes: [string, () => Promise<unknown>][] = [
      ['a batch upsert of new vessels', () => fleet.upsertMany(SECTORS.map((sector, i) => vesselRecord(`NEW-${i}`, { sector })))],
      ['an upsert that moves two vessels to another sector', () => fleet.upsertMany([vesselRecord('OLD-1', { sector: 'Core Worlds' }), vesselRecord('NEW-0', { sector: 'Inner Rim' })])],
      ['an upsert that only renames', () => fleet.upsertMany([vesselRecord('OLD-2', { name: 'Renamed' })])],
      ['an upsert mixing a new vessel and a moved one', () => fleet.upsertMany([vesselRecord('NEW-9', { sector: 'Mid Rim' }), vesselRecord('OLD-3', { sector: 'Mid Rim' })])],
      ['an update that moves a sector', () => db.updateTable('vessels').set({ sector: 'Outer Rim' }).where('sector', '=', 'Mid Rim').execute()],
      ['a plain insert', () => db.insertInto('vessels').values(vesselRecord('NEW-10', { sector: 'Inner Rim' })).execute()],
      ['a delete of one sector', () => db.deleteFrom('vessels').where('sector', '=', 'Inner Rim').execute()],
      ['a delete of everything', () => db.deleteFrom('vessels').execute()],
      ['an insert after all were gone', () => fleet.upsertMany([vesselRecord('NEW-11', { sector: 'Core Worlds' })])],
    ];
    for (const [what, write] of writes) {
      assert.ok((await versionStep(write)) >= 1, `${what} raises the version`);
      await assertCountsExact(what);
    }
  });

  it('leaves the counts and the version alone when a write changes no row or rolls back', async () => {
    assert.equal(await versionStep(() => db.updateTable('vessels').set({ sector: 'Mid Rim' }).where('id', '=', 'NONE-1').execute()), 0);
    assert.equal(await versionStep(() => db.deleteFrom('vessels').where('id', '=', 'NONE-1').execute()), 0);
    const rolledBack = () =>
      db.transaction().execute(async (trx) => {
        await fleet.upsertMany([vesselRecord('NEW-12'), vesselRecord('NEW-11', { sector: 'Outer Rim' })], trx);
        throw new Error('roll back');
      });
    assert.equal(await versionStep(() => assert.rejects(rolledBack(), /roll back/)), 0);
    await assertCountsExact('after a rollback');
  });

  it('zeroes the counts on TRUNCATE (PostgreSQL), which fires no delete trigger', { skip: engine !== 'postgres' && 'SQLite has no TRUNCATE' }, async () => {
    await fleet.upsertMany([vesselRecord('NEW-13'), vesselRecord('NEW-14', { sector: 'Mid Rim' })]);
    assert.ok((await versionStep(() => sql`TRUNCATE vessels`.execute(db))) >= 1);
    await assertCountsExact('after TRUNCATE');
  });

  it('serves a cursor page from an index, in id order without a sort, with or without a sector', async () => {
    // Core Worlds holds 1 in 50: walking the primary key and filtering would read 50 rows per vessel shown.
    const many = Array.from({ length: 5_000 }, (_, i) => vesselRecord(`BULK-${String(i).padStart(5, '0')}`, { sector: SECTORS[i % 50 === 0 ? 3 : i % 3] }));
    await fleet.upsertMany(many);
    if (engine === 'postgres') {
      await sql`ANALYZE vessels`.execute(db);
    }
    await assertCountsExact('after 5,000 vessels');

    const captured: CompiledQuery[] = [];
    const capture: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        captured.push(db.getExecutor().compileQuery(node, queryId));
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const capturing = new FleetRepository(db.withPlugin(capture));
    // The repository compiles its state read when it is made: only the page queries below are wanted.
    captured.length = 0;
    await capturing.findPage(undefined, 11, { after: 'BULK-04000' });
    await capturing.findPage('Core Worlds', 11, { after: 'BULK-04000' });
    const [unfiltered, bySector] = captured;
    const explain = async (query: CompiledQuery) => {
      const prefix = engine === 'postgres' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
      const { rows } = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + query.sql, [...query.parameters]));
      return rows.map((row) => String(row['QUERY PLAN'] ?? row.detail)).join('\n');
    };
    const [plain, sector] = [await explain(unfiltered), await explain(bySector)];
    if (engine === 'postgres') {
      assert.match(plain, /Index Scan using vessels_pkey/, plain);
      // The planner may also walk the primary key and filter, which reads from the cursor on as well.
      assert.match(sector, /Index Scan using (vessels_sector_idx|vessels_pkey)/, sector);
    } else {
      assert.match(plain, /SEARCH vessels USING INDEX sqlite_autoindex_vessels_1 \(id>\?\)/, plain);
      assert.match(sector, /SEARCH vessels USING INDEX vessels_sector_idx \(sector=\? AND id>\?\)/, sector);
    }
    for (const plan of [plain, sector]) {
      assert.doesNotMatch(plan, /Sort|TEMP B-TREE|Seq Scan|SCAN vessels/, plan);
    }
  });
});
