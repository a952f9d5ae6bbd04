import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import { isReadOnlyRefusal } from './database-errors';

/*
 * What differs between SQLite and PostgreSQL at run time, beyond opening them (sqlite.ts, postgres.ts).
 * Queries elsewhere are written once for both.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
type AnyKysely = Kysely<any>;

export function isPostgres(db: AnyKysely): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * True when transactions should be grouped into shared commits (SQLite: one connection, whose commits
 * each wait for a sync). PostgreSQL overlaps the commits of its pooled connections by itself.
 */
export function groupsCommits(db: AnyKysely): boolean {
  return !isPostgres(db);
}

/** Rows of each index SQLite's ANALYZE reads: enough to tell a key from a category, in milliseconds. */
export const ANALYSIS_LIMIT = 1_000;

/**
 * Gives the planner fresh statistics of `tables`, for reads that join them right after many writes.
 * Without them PostgreSQL counts rows written since autovacuum last analysed as almost none, and SQLite
 * takes any index with an equality as good as another: either may then look through one table once per
 * row of the other (a page of 1,000 assets took SQLite 92 s over 65,000 events). PostgreSQL skips a
 * table another session is analysing; SQLite samples at most ANALYSIS_LIMIT rows of each index, as
 * openSqlite sets on every connection.
 */
export async function refreshPlannerStatistics(db: AnyKysely, tables: readonly string[]): Promise<void> {
  try {
    if (isPostgres(db)) {
      await sql`analyze (skip_locked) ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db);
      return;
    }
    for (const table of tables) {
      await sql`analyze ${sql.table(table)}`.execute(db);
    }
  } catch (error) {
    // A database that takes no writes (a standby, a read-only file) plans with the statistics it has.
    if (!isReadOnlyRefusal(error)) {
      throw error;
    }
  }
}

/**
 * The schema that unqualified names resolve to on PostgreSQL (the first of search_path). Kysely's
 * migrator must be told it, or it finds another schema's migration tables and skips creating its own.
 */
export async function currentSchema(db: AnyKysely): Promise<string | undefined> {
  if (!isPostgres(db)) {
    return undefined;
  }
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

/**
 * The database's clock, as the trail stores times (ISO 8601 UTC with milliseconds, as Date.toISOString
 * writes them): on PostgreSQL the server's transaction_timestamp(), one clock for every instance, so an
 * instance's wrong clock dates nothing, and one instant for every statement of a decision's transaction
 * (its change and its event); on SQLite the clock of the one machine whose processes share the file.
 */
export function databaseClock(db: AnyKysely): RawBuilder<string> {
  return isPostgres(db) ? postgresInstant(sql`transaction_timestamp()`) : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
}

/** A PostgreSQL timestamp written as SQLite's strftime writes instants, so both engines store and compare the same text. */
function postgresInstant(timestamp: RawBuilder<unknown>): RawBuilder<string> {
  return sql<string>`to_char((${timestamp}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The database's clock as the statement that reads it begins, written as databaseClock writes instants:
 * for a change that first waited in its transaction for others (lockOutReaders), and is dated after them.
 * SQLite's clock is the statement's already.
 */
export function databaseStatementClock(db: AnyKysely): RawBuilder<string> {
  return isPostgres(db) ? postgresInstant(sql`statement_timestamp()`) : databaseClock(db);
}

/**
 * The database's clock `ms` milliseconds from now (before it when negative), written as databaseClock writes instants: what leases
 * and retry times are stored as, so instances whose own clocks disagree still agree on when a lease ends.
 */
export function databaseClockIn(db: AnyKysely, ms: number): RawBuilder<string> {
  const whole = Math.round(ms);
  return isPostgres(db)
    ? postgresInstant(sql`transaction_timestamp() + ${whole}::integer * interval '1 millisecond'`)
    : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`${whole < 0 ? '' : '+'}${whole / 1000} seconds`})`;
}

/**
 * Makes the transactions that name the same `key` run their check-then-write one after another, inside
 * `trx` until it ends: on PostgreSQL a transaction-scoped advisory lock (other pooled connections and
 * other instances wait for it). SQLite needs none: a process's transactions run in turn on its one
 * connection, and in WAL mode a transaction whose read another process's commit overtook cannot write.
 */
export async function serializeWithin(trx: AnyKysely, space: string, key: string): Promise<void> {
  if (isPostgres(trx)) {
    await sql`select pg_advisory_xact_lock(hashtext(${space}), hashtext(${key}))`.execute(trx);
  }
}

/**
 * serializeWithin without the wait: false at once when another transaction holds `key` now. On
 * PostgreSQL the lock ends with the transaction, however it ends (a crashed client's connection closed
 * ends it); SQLite always answers true, its transactions running one after another as they do.
 */
export async function trySerializeWithin(trx: AnyKysely, space: string, key: string): Promise<boolean> {
  if (!isPostgres(trx)) {
    return true;
  }
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtext(${space}), hashtext(${key})) as locked`.execute(trx);
  return rows[0]?.locked === true;
}

/**
 * Locks the rows of `table` whose `key` is one of `keys` until `trx` ends, in key order: on PostgreSQL a
 * SELECT ... ORDER BY ... FOR UPDATE, which locks rows in the order it sorts them, so transactions that
 * each change several of the same rows lock them in one order and cannot deadlock (an UPDATE of many
 * rows locks them in whatever order its plan reads them). SQLite needs none: a database's write
 * transactions run one after another.
 */
export async function lockInKeyOrder(trx: AnyKysely, table: string, key: string, keys: readonly string[]): Promise<void> {
  if (isPostgres(trx)) {
    await trx.selectFrom(table).select(key).where(key, 'in', keys).orderBy(key).forUpdate().execute();
  }
}

/**
 * Makes `trx`, which is about to change `table`, wait until every transaction that has read it ends, and
 * makes later readers wait for `trx`: on PostgreSQL an ACCESS EXCLUSIVE lock, the one mode a plain
 * SELECT's ACCESS SHARE (held to its transaction's end) conflicts with. Readers pay nothing for it, unlike
 * a row lock each, which writes the row. SQLite needs none: its transactions begin with the write lock.
 */
export async function lockOutReaders(trx: AnyKysely, table: string): Promise<void> {
  if (isPostgres(trx)) {
    await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(trx);
  }
}
