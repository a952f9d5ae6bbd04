import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { SqliteLocation } from '../config';
import type { DB } from './database.types';

/** The only place that knows which SQL engine is behind Kysely. */
export function createDatabase(location: SqliteLocation): Kysely<DB> {
  if (location.path !== ':memory:') {
    mkdirSync(dirname(location.path), { recursive: true });
  }
  const sqlite = new BetterSqlite3(location.path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
}
