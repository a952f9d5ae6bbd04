import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Decisions write their events here, unsequenced, each in its own transaction and with no shared lock;
 * the sequencer moves them into `audit_events` in batches, where they get their positions and hashes.
 * A migration is history: it imports nothing from the live code, so it creates the same table forever.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('audit_pending')
    // A bigint on PostgreSQL, which never wraps; SQLite's AUTOINCREMENT never hands out a deleted row's id again.
    .addColumn('pending_id', postgres ? 'bigint' : 'integer', (col) =>
      postgres ? col.primaryKey().generatedAlwaysAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('recorded_at', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('outcome', 'text', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('actor', 'text')
    .addColumn('actor_clearance', 'integer')
    .addColumn('asset_id', 'text')
    .addColumn('request_id', 'text', (col) => col.notNull())
    .addColumn('ip', 'text')
    .addColumn('method', 'text', (col) => col.notNull())
    .addColumn('path', 'text', (col) => col.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_pending').execute();
}
