import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Enough for every query the service builds; an import's many batch shapes start it afresh when they fill it. */
export const STATEMENT_CACHE_SIZE = 200;

/**
 * The database Kysely's SqliteDialect sees: it prepares each query's SQL anew, which costs more than
 * running a short statement, so prepared statements are kept by SQL text and reused. Measured on Node 26
 * (docs/performance.md): without it a decommission took 1.65 times the server CPU, and a listing page
 * about 1.5 times when its page was not kept. When full, it is emptied and fills again. A statement still being iterated (a stream)
 * cannot run again until it ends, so a busy one is replaced by a fresh, uncached one. Closing drops every
 * statement with the database: none may outlive it (see docs/operations.md, Runtimes).
 */
export class StatementCachingDatabase implements SqliteDatabase {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly database: Database,
    private readonly capacity = STATEMENT_CACHE_SIZE,
  ) {}

  prepare(sql: string): SqliteStatement {
    const cached = this.statements.get(sql);
    if (cached?.busy) {
      return this.database.prepare(sql);
    }
    if (cached) {
      return cached;
    }
    if (this.statements.size >= this.capacity) {
      this.statements.clear();
    }
    const statement = this.database.prepare(sql);
    this.statements.set(sql, statement);
    return statement;
  }

  close(): void {
    this.statements.clear();
    this.database.close();
  }
}
