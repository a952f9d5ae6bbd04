import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { SqliteLocation } from '../config';
import type { DB } from './database.types';
import { StatementCachingDatabase } from './statement-cache';
import { TracedSqliteDatabase } from './traced-sqlite';

/** With `traced`, a span for each statement that runs inside traced work. */
export function createSqlite(location: SqliteLocation, { traced }: { traced: boolean }): Kysely<DB> {
  const database = new StatementCachingDatabase(openSqlite(location.path));
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: traced ? new TracedSqliteDatabase(database) : database }) });
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
