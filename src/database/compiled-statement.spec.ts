import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  SqliteDialect,
} from 'kysely';
import { CompiledStatement } from './compiled-statement';
import type { DB } from './database.types';

interface Renaming {
  asset_id: string;
  former_pilot: string;
  asset_type: string;
}

const rename = (db: Kysely<DB>, { asset_id, ...fields }: Renaming) =>
  db.updateTable('assets').set(fields).where('asset_id', '=', asset_id).where('status', '=', 'active').returning(['asset_id', 'former_pilot', 'asset_type']);

function sqliteAssets(): Kysely<DB> {
  const database = new BetterSqlite3(':memory:');
  database.exec(`create table assets (asset_id text primary key, asset_type text, former_pilot text, status text)`);
  database.exec(`insert into assets values ('A-1', 'vehicle', 'Wedge', 'active'), ('A-2', 'vehicle', 'Biggs', 'active'), ('A-3', 'facility', 'Porkins', 'decommissioned')`);
  return new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
}

/** A PostgreSQL Kysely that runs nothing and keeps every query it was given. */
function recordingPostgres(): { db: Kysely<DB>; queries: CompiledQuery[] } {
  const queries: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      queries.push(query);
      return Promise.resolve({ rows: [] });
    },
    streamQuery: () => {
      throw new Error('not streamed');
    },
  };
  const driver: Driver = {
    init: () => Promise.resolve(),
    acquireConnection: () => Promise.resolve(connection),
    beginTransaction: () => Promise.resolve(),
    commitTransaction: () => Promise.resolve(),
    rollbackTransaction: () => Promise.resolve(),
    releaseConnection: () => Promise.resolve(),
    destroy: () => Promise.resolve(),
  };
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, queries };
}

describe('CompiledStatement', () => {
  it('binds each run its own values in their columns, as the statement built anew would', async () => {
    const db = sqliteAssets();
    const statement = new CompiledStatement(db, ['asset_id', 'former_pilot', 'asset_type'], rename);
    assert.deepEqual(await statement.run(db, { asset_id: 'A-2', former_pilot: 'Dak', asset_type: 'equipment' }), [
      { asset_id: 'A-2', former_pilot: 'Dak', asset_type: 'equipment' },
    ]);
    assert.deepEqual(await statement.run(db, { asset_id: 'A-3', former_pilot: 'Dak', asset_type: 'equipment' }), [], "the statement's fixed value (status) binds too");
    const rows = await db.selectFrom('assets').select(['asset_id', 'asset_type', 'former_pilot']).orderBy('asset_id').execute();
    assert.deepEqual(rows, [
      { asset_id: 'A-1', asset_type: 'vehicle', former_pilot: 'Wedge' },
      { asset_id: 'A-2', asset_type: 'equipment', former_pilot: 'Dak' },
      { asset_id: 'A-3', asset_type: 'facility', former_pilot: 'Porkins' },
    ]);
    await db.destroy();
  });

  it("runs on PostgreSQL the SQL and parameters Kysely builds for the same values", async () => {
    const { db, queries } = recordingPostgres();
    const values = { asset_id: 'A-2', former_pilot: 'Dak', asset_type: 'equipment' };
    await new CompiledStatement(db, ['asset_id', 'former_pilot', 'asset_type'], rename).run(db, values);
    await rename(db, values).execute();
    const [compiledOnce, builtAnew] = queries;
    assert.equal(compiledOnce.sql, builtAnew.sql);
    assert.deepEqual(compiledOnce.parameters, builtAnew.parameters);
  });

  it('refuses a named value the statement does not bind, rather than run without it', () => {
    const db = sqliteAssets();
    assert.throws(
      () => new CompiledStatement(db, ['asset_id', 'former_pilot', 'asset_type'], (kysely, { asset_id }: Renaming) => kysely.deleteFrom('assets').where('asset_id', '=', asset_id)),
      /binds no parameter to former_pilot, asset_type/,
    );
  });
});
