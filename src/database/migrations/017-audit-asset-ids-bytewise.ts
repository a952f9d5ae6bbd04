import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL the audit trail's asset ids take the bytewise collation of `assets.asset_id` (001's
 * bytewiseText): with the database's default collation on one side and "C" on the other, a comparison of
 * the two has no collation its index can serve, so reading an asset's events by the asset's own id read
 * every event instead (the verifier's cross-check of assets and their events). Values are unchanged; the
 * asset index of each table is rebuilt. SQLite's text is bytewise already.
 * A migration is history: it imports nothing from the live code.
 */
const TABLES = ['audit_events', 'audit_pending'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of TABLES) {
      await sql`alter table ${sql.table(table)} alter column asset_id type text collate "C"`.execute(db);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of TABLES) {
      await sql`alter table ${sql.table(table)} alter column asset_id type text collate "default"`.execute(db);
    }
  }
}
