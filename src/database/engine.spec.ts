import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { Client } from 'pg';
import { createDatabase } from './create-database';
import type { DB } from './database.types';
import { refreshPlannerStatistics } from './engine';
import { migrateToLatest } from './migrate';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };
const TABLES = ['assets', 'audit_events'];

describe('refreshPlannerStatistics', () => {
  it('SQLite: the tables have rows in sqlite_stat1, which its planner reads', async () => {
    const db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    try {
      await migrateToLatest(db);
      await db.insertInto('assets').values({ asset_id: 'BX-1', asset_type: 'vehicle', former_pilot: 'Pilot' }).execute();
      await refreshPlannerStatistics(db, TABLES);
      const { rows } = await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1 order by tbl`.execute(db);
      assert.deepEqual(
        rows.map(({ tbl }) => tbl),
        ['assets'],
        'an empty table (audit_events) leaves no statistics to keep',
      );
    } finally {
      await db.destroy();
    }
  });

  it('SQLite opened read-only: keeps the statistics it has, and the reads go on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-engine-spec-'));
    const path = join(dir, 'registry.sqlite');
    const writer = createDatabase({ dialect: 'sqlite', path });
    const reader = new Kysely<DB>({ dialect: new SqliteDialect({ database: new BetterSqlite3(path, { readonly: true }) }) });
    try {
      await migrateToLatest(writer);
      await refreshPlannerStatistics(reader, TABLES);
      assert.equal((await reader.selectFrom('assets').select('asset_id').execute()).length, 0);
    } finally {
      await reader.destroy();
      await writer.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: the tables are analysed', { skip: !DATABASE_URL && 'needs TEST_DATABASE_URL' }, async () => {
    const schema = `engine_spec_${randomBytes(6).toString('hex')}`;
    const admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    let db: Kysely<DB> | undefined;
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      const url = new URL(DATABASE_URL as string);
      url.searchParams.set('options', `-c search_path=${schema}`);
      db = createDatabase({ dialect: 'postgres', url: url.toString(), poolSize: 1, timeouts: TIMEOUTS });
      await migrateToLatest(db);
      await refreshPlannerStatistics(db, TABLES);
      const { rows } = await admin.query<{ relname: string }>(
        // reltuples is -1 until a table is first analysed (PostgreSQL 14 and later).
        'SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relname = ANY($2) AND reltuples >= 0 ORDER BY relname',
        [schema, TABLES],
      );
      assert.deepEqual(
        rows.map(({ relname }) => relname),
        TABLES,
      );
    } finally {
      await db?.destroy();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
