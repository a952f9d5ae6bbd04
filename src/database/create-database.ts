import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Logger } from '@nestjs/common';
import BetterSqlite3 from 'better-sqlite3';
import {
  type ColumnDefinitionBuilder,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type RawBuilder,
  sql,
  SqliteDialect,
} from 'kysely';
import { Pool, type PoolConfig } from 'pg';
import type { DatabaseLocation, PostgresLocation, SqliteLocation } from '../config';
import type { DB } from './database.types';
import { StatementCachingDatabase } from './statement-cache';

/*
 * The only file that knows which SQL engine is behind Kysely. Queries and migrations elsewhere are
 * written once for both; what differs between SQLite and PostgreSQL is said here.
 */

export function createDatabase(location: DatabaseLocation): Kysely<DB> {
  return location.dialect === 'postgres' ? createPostgres(location) : createSqlite(location);
}

function createSqlite(location: SqliteLocation): Kysely<DB> {
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: new StatementCachingDatabase(openSqlite(location.path)) }) });
}

/** The SQLite file as the service opens it: written ahead, synced on every commit, waiting on other processes' writes. */
export function openSqlite(path: string): BetterSqlite3.Database {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
  }
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

/** How busy a PostgreSQL pool is: connections open and checked out, and queries waiting for one. */
export interface PoolUsage {
  max: number;
  inUse: number;
  idle: number;
  waiting: number;
}

/** Kysely does not expose its dialect's pool; the metrics read its figures through this. */
const POOLS = new WeakMap<Kysely<DB>, Pool>();

/** The usage of the PostgreSQL pool behind `db`; undefined on SQLite, which has no pool. */
export function poolUsage(db: Kysely<DB>): PoolUsage | undefined {
  const pool = POOLS.get(db);
  return pool && { max: pool.options.max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** The settings of the PostgreSQL pool behind `db`, for a connection of its own; undefined on SQLite. */
export function postgresConnectionConfig(db: Kysely<DB>): PoolConfig | undefined {
  return POOLS.get(db)?.options;
}

function createPostgres({ url, poolSize, timeouts }: PostgresLocation): Kysely<DB> {
  const logger = new Logger('Database');
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: timeouts.idleMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveDelayMs,
    statement_timeout: timeouts.statementMs,
    // A transaction left open by a client that vanished would hold its row locks until TCP noticed.
    idle_in_transaction_session_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
  });
  // pg-pool listens for errors only on idle clients; one that dies while checked out would otherwise
  // end the process with an unhandled 'error' event. Its query fails with the same error.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn(`database connection lost: ${error.message}`)));
  // The pool re-emits an idle client's error, which the client's own listener has already logged.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new DiscardingPool(pool) }) });
  POOLS.set(db, pool);
  return db;
}

/**
 * pg takes back a client whose query timed out while that query is still waiting for an answer that
 * may never come, and would queue the next query behind it. Kysely releases clients without saying
 * why, so this pool releases a client that saw the database unavailable as broken, and pg-pool closes
 * it; until then its further queries (a rollback) fail at once rather than wait out another timeout.
 */
class DiscardingPool implements PostgresPool {
  constructor(private readonly pool: Pool) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let lost: Error | undefined;
    const discarding = {
      async query(text: string, parameters: readonly unknown[]) {
        if (lost) {
          throw lost;
        }
        try {
          return await client.query(text, [...parameters]);
        } catch (error) {
          if (isDatabaseUnavailable(error)) {
            lost = error as Error;
          }
          throw error;
        }
      },
      release: () => client.release(lost),
    };
    // Kysely passes a cursor only when the dialect is given a cursor class, which this one is not.
    return discarding as unknown as PostgresPoolClient;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run on any schema
type AnyKysely = Kysely<any>;

function isPostgres(db: AnyKysely): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * True when transactions should be grouped into shared commits (SQLite: one connection, whose commits
 * each wait for a sync). PostgreSQL overlaps the commits of its pooled connections by itself.
 */
export function groupsCommits(db: AnyKysely): boolean {
  return !isPostgres(db);
}

/** An auto-incrementing integer primary key, spelled the way each engine wants it. */
export function autoIncrementKey(db: AnyKysely): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return isPostgres(db)
    ? (column) => column.primaryKey().generatedByDefaultAsIdentity()
    : (column) => column.primaryKey().autoIncrement();
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

/** Text that sorts byte by byte on both engines; PostgreSQL would otherwise follow the database's locale. */
export function bytewiseText(db: AnyKysely): RawBuilder<unknown> {
  return isPostgres(db) ? sql`text collate "C"` : sql`text`;
}

/**
 * A table whose rows are counted per value of one column and whose every write bumps a version, both kept
 * by triggers in the writing transaction, so readers need no COUNT(*) and see every write at once.
 */
export interface CountedTable {
  table: string;
  groupColumn: string;
  /** Holds `groupColumn` (its primary key) and `countColumn`; the row keyed `allRowsKey` counts every row. */
  countsTable: string;
  countColumn: string;
  allRowsKey: string;
  /** One row whose `version` column every committed write to `table` raises. */
  versionTable: string;
}

const WRITES = ['insert', 'update', 'delete'] as const;

/**
 * SQLite has only row triggers; PostgreSQL gets statement triggers over the transition tables, so a
 * batch of 1,000 rows touches each count once. Each write bumps the version before the counts: on
 * PostgreSQL, writers then queue on the version row first and cannot deadlock on the count rows.
 */
export async function createCountingTriggers(db: AnyKysely, counted: CountedTable): Promise<void> {
  const { table, groupColumn, countsTable, countColumn, allRowsKey, versionTable } = counted;
  const [t, group, counts, count, version] = [table, groupColumn, countsTable, countColumn, versionTable].map((name) => sql.id(name));
  const all = sql.lit(allRowsKey);
  const bumpVersion = sql`UPDATE ${version} SET version = version + 1`;
  if (!isPostgres(db)) {
    const add = (row: 'NEW' | 'OLD', delta: 1 | -1) =>
      sql`UPDATE ${counts} SET ${count} = ${count} + ${sql.lit(delta)} WHERE ${group} IN (${sql.raw(row)}.${group}, ${all})`;
    // Not INSERT OR IGNORE: the conflict policy of the statement that fires the trigger (an upsert's) overrides it.
    const ensureRow = sql`INSERT INTO ${counts} (${group}, ${count}) SELECT NEW.${group}, 0
      WHERE NOT EXISTS (SELECT 1 FROM ${counts} WHERE ${group} = NEW.${group})`;
    const bodies = {
      insert: sql`${bumpVersion}; ${ensureRow}; ${add('NEW', 1)};`,
      delete: sql`${bumpVersion}; ${add('OLD', -1)};`,
      // The total stays; only a change of group moves one count to another.
      update: sql`${bumpVersion}; ${ensureRow};
        UPDATE ${counts} SET ${count} = ${count} + (${group} = NEW.${group}) - (${group} = OLD.${group})
        WHERE NEW.${group} IS NOT OLD.${group} AND ${group} IN (NEW.${group}, OLD.${group});`,
    };
    for (const write of WRITES) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_counted_after_${write}`)} AFTER ${sql.raw(write.toUpperCase())} ON ${t}
                BEGIN ${bodies[write]} END`.execute(db);
    }
    return;
  }
  const changes = {
    insert: { referencing: sql`NEW TABLE AS new_rows`, rows: sql`SELECT ${group}, 1 AS delta FROM new_rows` },
    delete: { referencing: sql`OLD TABLE AS old_rows`, rows: sql`SELECT ${group}, -1 AS delta FROM old_rows` },
    update: {
      referencing: sql`OLD TABLE AS old_rows NEW TABLE AS new_rows`,
      rows: sql`SELECT ${group}, 1 AS delta FROM new_rows UNION ALL SELECT ${group}, -1 FROM old_rows`,
    },
  };
  for (const write of WRITES) {
    const name = sql.id(`${table}_counted_after_${write}`);
    // A statement that wrote no row (an upsert whose rows all clashed fires the insert trigger too) changes nothing.
    await sql`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF NOT EXISTS (SELECT FROM (${changes[write].rows}) AS written) THEN RETURN NULL; END IF;
        ${bumpVersion};
        INSERT INTO ${counts} (${group}, ${count})
          SELECT coalesce(${group}, ${all}), sum(delta) FROM (${changes[write].rows}) AS changed
          GROUP BY ROLLUP (${group}) HAVING sum(delta) <> 0
        ON CONFLICT (${group}) DO UPDATE SET ${count} = ${counts}.${count} + excluded.${count};
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER ${name} AFTER ${sql.raw(write.toUpperCase())} ON ${t}
              REFERENCING ${changes[write].referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`.execute(db);
  }
  // TRUNCATE fires no delete trigger.
  const truncated = sql.id(`${table}_counted_after_truncate`);
  await sql`CREATE FUNCTION ${truncated}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN ${bumpVersion}; UPDATE ${counts} SET ${count} = 0; RETURN NULL; END $$`.execute(db);
  await sql`CREATE TRIGGER ${truncated} AFTER TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION ${truncated}()`.execute(db);
}

export async function dropCountingTriggers(db: AnyKysely, { table }: CountedTable): Promise<void> {
  for (const write of [...WRITES, ...(isPostgres(db) ? (['truncate'] as const) : [])]) {
    const name = sql.id(`${table}_counted_after_${write}`);
    await (isPostgres(db) ? sql`DROP FUNCTION ${name}() CASCADE` : sql`DROP TRIGGER ${name}`).execute(db);
  }
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: statement timeout, shutting down, starting up, out of connections, authentication failed.
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '28P01',
  '28000',
  'SQLITE_CANTOPEN',
]);
// pg's own messages: a dropped connection, no connection within the timeout, no answer within the timeout.
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout/i;

/**
 * True when a failure means the database cannot serve right now (unreachable, refused, timed out, out of
 * connections, refusing our credentials), rather than a fault in the request.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 is every connection exception; SQLITE_BUSY_* are the extended busy codes.
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_BUSY'))) {
    return true;
  }
  if (error instanceof AggregateError) {
    return error.errors.some(isDatabaseUnavailable);
  }
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/** Where the data lives, for messages: the file, or the PostgreSQL URL without its password. */
export function describeLocation(location: DatabaseLocation): string {
  if (location.dialect === 'sqlite') {
    return location.path;
  }
  const url = new URL(location.url);
  url.password = url.password ? '***' : '';
  return url.toString();
}
