import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Logger } from '@nestjs/common';
import BetterSqlite3 from 'better-sqlite3';
import { type ColumnDefinitionBuilder, Kysely, PostgresAdapter, PostgresDialect, type RawBuilder, sql, SqliteDialect } from 'kysely';
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
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
}

function createPostgres(location: PostgresLocation): Kysely<DB> {
  const logger = new Logger('Database');
  const pool = new Pool({ connectionString: location.url, max: location.poolSize, connectionTimeoutMillis: 3_000 });
  // A connection that dies while idle (server restart, network cut) must not take the process down.
  pool.on('error', (error) => logger.warn(`idle database connection lost: ${error.message}`));
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
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

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: shutting down, starting up, out of connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);
const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable/i;

/** True when a failure means the database cannot be reached right now, rather than a fault in the request. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) {
    return true;
  }
  if (error instanceof AggregateError) {
    return error.errors.some(isDatabaseUnavailable);
  }
  return UNREACHABLE_MESSAGES.test(error.message);
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
