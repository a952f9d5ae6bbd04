import { existsSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { DatabaseConfig, DatabaseLocation } from '../config';
import { createDatabase, type DB, migratedOrClosed } from '../database';

/** The most DATABASE_STATEMENT_TIMEOUT_MS allows, ten minutes. */
const LONG_STATEMENT_MS = 600_000;

/**
 * The configuration for a command that moves many records: the service's PostgreSQL timeouts are sized
 * for requests, while an import holds one transaction for as long as the file takes and an export's
 * batches may queue behind it. Both limits rise to ten minutes unless configured higher.
 */
export function forDataCommand(config: DatabaseConfig): DatabaseConfig {
  const { database } = config;
  if (database.dialect !== 'postgres') {
    return config;
  }
  const statementMs = Math.max(database.timeouts.statementMs, LONG_STATEMENT_MS);
  const queryMs = Math.max(database.timeouts.queryMs, statementMs + 1_000);
  return { ...config, database: { ...database, timeouts: { ...database.timeouts, statementMs, queryMs } } };
}

/**
 * Refuses a SQLite file that is not there, for a command that only reads one: opening it would create
 * an empty database (and its folders), and a mistyped path in a backup script would export nothing.
 */
export function assertDatabaseExists(location: DatabaseLocation): void {
  if (location.dialect === 'sqlite' && location.path !== ':memory:' && !existsSync(location.path)) {
    throw new Error(`No SQLite database at ${location.path}: check DATABASE_URL; this command reads a database and creates none`);
  }
}

/** The database of db:import or db:export, migrated first as the server's start would, or checked with MIGRATE_ON_START=false. */
export function openDataDatabase(config: DatabaseConfig): Promise<Kysely<DB>> {
  return migratedOrClosed(createDatabase(config.database), config.migrateOnStart);
}

/** 1234567 → "1,234,567". */
export const count = (value: number): string => value.toLocaleString('en');
