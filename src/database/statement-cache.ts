import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Enough for every query the service builds; an import's many batch shapes cycle through without growing it. */
export const STATEMENT_CACHE_SIZE = 200;

/**
 * The database Kysely's SqliteDialect sees: it prepares each query's SQL anew, which costs more than
 * running a short statement, so prepared statements are kept by SQL text and reused (least recently
 * used dropped first). A statement still being iterated (a stream) cannot run again until it ends, so
 * a busy one is replaced by a fresh, uncached one. Closing drops every statement with the database:
 * none may outlive it (see README, Node 24).
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
    // Re-inserting moves the statement to the newest end of the map's order.
    this.statements.delete(sql);
    const statement = cached ?? this.database.prepare(sql);
    this.statements.set(sql, statement);
    if (this.statements.size > this.capacity) {
      this.statements.delete(this.statements.keys().next().value as string);
    }
    return statement;
  }

  close(): void {
    this.statements.clear();
    this.database.close();
  }
}
