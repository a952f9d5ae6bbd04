import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';
import { ConfigurationError, type SqliteLocation } from '../config';
import type { DB } from './database.types';
import { ANALYSIS_LIMIT } from './engine';
import { StatementCachingDatabase } from './statement-cache';
import { TracedSqliteDatabase } from './traced-sqlite';

/** With `traced`, a span for each statement that runs inside traced work. */
export function createSqlite(location: SqliteLocation, { traced }: { traced: boolean }): Kysely<DB> {
  prepareDirectory(location);
  const database = new StatementCachingDatabase(openSqlite(location.path));
  return new Kysely<DB>({ dialect: new WritingTransactionsDialect({ database: traced ? new TracedSqliteDatabase(database) : database }) });
}

/**
 * Every transaction the service opens on SQLite writes, so it takes the write lock when it begins
 * (`begin immediate`), waiting up to busy_timeout for another process's. Begun deferred, a transaction
 * that reads first holds a snapshot; when another process commits before it writes, SQLite refuses its
 * write at once (SQLITE_BUSY_SNAPSHOT, no wait), and the request fails with 503.
 */
class WritingTransactionsDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new WritingTransactionsDriver(this.settings);
  }
}

class WritingTransactionsDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Creates the data directory when missing; refuses any other missing directory, which is likelier a typo than a new database. */
function prepareDirectory({ path, createsDirectory }: SqliteLocation): void {
  if (path === ':memory:') {
    return;
  }
  const directory = dirname(path);
  if (createsDirectory) {
    mkdirSync(directory, { recursive: true });
  } else if (!existsSync(directory)) {
    throw new ConfigurationError(
      `Invalid configuration: DATABASE_URL names ${path}, whose directory ${directory} does not exist: check the path, or create the directory first`,
    );
  }
}

/**
 * The SQLite file as the service opens it: written ahead, synced on every commit, waiting on other
 * processes' writes, with planner statistics for the tables that lack or outgrew them (SQLite's advice
 * for long-lived connections; PlannerStatistics keeps them up to date while the service runs).
 */
export function openSqlite(path: string): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  sqlite.pragma('optimize = 0x10002');
  return sqlite;
}
