import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe } from 'node:test';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { Client } from 'pg';
import type { AuditOutcome, DB } from '../../src/database';

export type TestEngine = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL names a server. */
export function testEngines(): TestEngine[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** Runs the suite once per engine, named after it, so each engine's results stand apart. */
export function describeEachDatabase(name: string, suite: (engine: TestEngine) => void): void {
  for (const engine of testEngines()) {
    describe(`${name} [${engine}]`, () => suite(engine));
  }
}

export interface TestDatabase {
  /** A DATABASE_URL for the service. */
  url: string;
  drop: () => Promise<void>;
}

async function withAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    throw new Error('TEST_DATABASE_URL is not set');
  }
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * A database no other test sees: a file in `dir` for SQLite, a fresh schema (selected through the
 * connection's search_path) for PostgreSQL, so test files can run side by side on one server.
 */
export async function createTestDatabase(engine: TestEngine, dir: string): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    return { url: `sqlite:${join(dir, 'registry.sqlite')}`, drop: async () => {} };
  }
  const schema = `fleet_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE SCHEMA ${schema}`));
  const base = new URL(process.env.TEST_DATABASE_URL as string);
  base.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: base.toString(),
    drop: () => withAdmin((admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => undefined),
  };
}

/**
 * Makes every write of a decision's audit event with this outcome fail, as a broken audit store would,
 * and returns the undo. Decisions append to audit_events on SQLite, and on PostgreSQL write to
 * audit_pending, whence the sequencer chains them.
 */
export function failAuditEvents(db: Kysely<DB>, engine: TestEngine, outcome: AuditOutcome): Promise<() => Promise<void>> {
  return refuseInserts(db, engine, engine === 'sqlite' ? 'audit_events' : 'audit_pending', `reject_${outcome}`, sql`NEW.outcome = ${sql.lit(outcome)}`);
}

/**
 * Makes every INSERT into `table` for which `when` holds (of its NEW row) fail, as a broken store would,
 * by a trigger named `name`; returns the undo. Triggers are the one thing here whose SQL differs between the engines.
 */
export async function refuseInserts(db: Kysely<DB>, engine: TestEngine, table: string, name: string, when: RawBuilder<unknown> = sql`true`): Promise<() => Promise<void>> {
  const trigger = sql.raw(name);
  const target = sql.table(table);
  if (engine === 'sqlite') {
    await sql`CREATE TRIGGER ${trigger} BEFORE INSERT ON ${target} WHEN ${when}
              BEGIN SELECT RAISE(ABORT, 'store refused'); END`.execute(db);
    return async () => {
      await sql`DROP TRIGGER ${trigger}`.execute(db);
    };
  }
  await sql`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN IF ${when} THEN RAISE EXCEPTION 'store refused'; END IF; RETURN NEW; END $$`.execute(db);
  await sql`CREATE TRIGGER ${trigger} BEFORE INSERT ON ${target} FOR EACH ROW EXECUTE FUNCTION ${trigger}()`.execute(db);
  return async () => {
    await sql`DROP TRIGGER ${trigger} ON ${target}`.execute(db);
    await sql`DROP FUNCTION ${trigger}()`.execute(db);
  };
}

/** A PostgreSQL row the test holds locked, and the backend that holds it, until `release`. */
export interface HeldRow {
  holder: number;
  release: () => Promise<void>;
}

/** Locks `assets` row `assetId` on PostgreSQL in a transaction of the test's own, so a decision about it waits in its UPDATE. */
export async function holdAssetRow(db: Kysely<DB>, assetId: string): Promise<HeldRow> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: (holder: number) => void;
  const holder = new Promise<number>((resolve) => (locked = resolve));
  const holding = db.transaction().execute(async (trx) => {
    await trx.selectFrom('assets').select('asset_id').where('asset_id', '=', assetId).forUpdate().execute();
    locked((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0].pid);
    await released;
  });
  return {
    holder: await Promise.race([holder, holding.then(() => Promise.reject(new Error(`the lock on ${assetId} ended before it was held`)))]),
    release: async () => {
      release();
      await holding;
    },
  };
}

/** The PostgreSQL backends waiting for a lock that backend `pid` holds. */
export async function blockedBy(db: Kysely<DB>, pid: number): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(db);
  return rows.map((row) => row.pid);
}
