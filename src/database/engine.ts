import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * What differs between SQLite and PostgreSQL at run time, beyond opening them (sqlite.ts, postgres.ts).
 * Queries elsewhere are written once for both.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
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
