import { type Kysely, sql } from 'kysely';
import { bytewiseText } from './schema-helpers';

/**
 * The answers of decisions sent with an Idempotency-Key, kept for a retry: one row per caller and key,
 * claimed (in_progress) before the decision is taken and completed with its answer, in the decision's
 * transaction. `claim_token` names the claim that may complete it, so a claim taken over from a crashed
 * instance cannot be completed by the one it was taken from. Expired rows are pruned by `expires_at`.
 * A migration is history: it imports nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  // Instants are ISO 8601 UTC text, compared as text: bytewise, whatever the database's locale.
  const instant = bytewiseText(db);
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('caller', 'text', (col) => col.notNull())
    .addColumn('idempotency_key', 'text', (col) => col.notNull())
    .addColumn('method', 'text', (col) => col.notNull())
    .addColumn('path', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull().check(sql`state in ('in_progress', 'completed')`))
    .addColumn('claim_token', 'text', (col) => col.notNull())
    .addColumn('claimed_at', instant, (col) => col.notNull())
    .addColumn('expires_at', instant, (col) => col.notNull())
    .addColumn('status', 'integer')
    .addColumn('headers', 'text')
    .addColumn('body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['caller', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry_idx').on('idempotency_keys').column('expires_at').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
