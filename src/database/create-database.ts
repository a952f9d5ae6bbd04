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
import { Pool } from 'pg';
import type { DatabaseLocation, PostgresLocation, SqliteLocation } from '../config';
import type { DB } from './database.types';

/*
 * The only file that knows which SQL engine is behind Kysely. Queries and migrations elsewhere are
 * written once for both; what differs between SQLite and PostgreSQL is said here.
 */

export function createDatabase(location: DatabaseLocation): Kysely<DB> {
  return location.dialect === 'postgres' ? createPostgres(location) : createSqlite(location);
}

function createSqlite(location: SqliteLocation): Kysely<DB> {
  if (location.path !== ':memory:') {
    mkdirSync(dirname(location.path), { recursive: true });
  }
  const sqlite = new BetterSqlite3(location.path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
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
