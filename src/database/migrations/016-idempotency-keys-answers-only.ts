import type { Kysely } from 'kysely';

/**
 * A key's row is written once, with its answer, by the transaction that decides under the key: the
 * claim before the decision (`state` in_progress, `claim_token`) was never seen outside that
 * transaction, as the key's lock (PostgreSQL's advisory lock, SQLite's write lock) is what keeps a
 * second request out while the first is decided. A row left in_progress (only an instance older than
 * migration 013's one-transaction decision could commit one) has no answer to give: deleted.
 * A migration is history: it imports nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('state', '<>', 'completed').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('claim_token').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('state').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('state', 'text', (col) => col.notNull().defaultTo('completed')).execute();
  await db.schema.alterTable('idempotency_keys').addColumn('claim_token', 'text', (col) => col.notNull().defaultTo('')).execute();
}
