import { type Kysely, sql } from 'kysely';
import { autoIncrementKey, bytewiseText } from './schema-helpers';

/**
 * Decommission requests, for DECOMMISSION_APPROVAL=required: a request waits (pending) for the officer
 * it names to approve or reject it, for its requester to withdraw it, or for its expiry. The database,
 * not an instance's memory, allows one pending request per asset (a partial unique index), so two
 * instances cannot both open one. `id` orders the listing (newest first) and is its keyset cursor;
 * `request_id` is the opaque id clients see. A migration is history: it imports nothing from the live code.
 */
const STATES = ['pending', 'approved', 'rejected', 'withdrawn', 'expired'];

const LISTING_INDEXES: Record<string, string[]> = {
  decommission_requests_state_idx: ['state', 'id'],
  decommission_requests_asset_idx: ['asset_id', 'id'],
  decommission_requests_authorizer_idx: ['authorized_by', 'state', 'id'],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  // Instants are ISO 8601 UTC text, compared as text: bytewise, whatever the database's locale.
  const instant = bytewiseText(db);
  await db.schema
    .createTable('decommission_requests')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('request_id', 'text', (col) => col.notNull().unique())
    .addColumn('asset_id', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull().check(sql`state in (${sql.join(STATES.map((state) => sql.lit(state)))})`))
    .addColumn('requested_by', 'text', (col) => col.notNull())
    .addColumn('authorized_by', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('created_at', instant, (col) => col.notNull())
    .addColumn('expires_at', instant, (col) => col.notNull())
    .addColumn('decided_at', instant)
    .addColumn('decided_by', 'text')
    .execute();
  await db.schema
    .createIndex('decommission_requests_one_pending_idx')
    .on('decommission_requests')
    .column('asset_id')
    .unique()
    .where(sql.ref('state'), '=', sql.lit('pending'))
    .execute();
  for (const [name, columns] of Object.entries(LISTING_INDEXES)) {
    await db.schema.createIndex(name).on('decommission_requests').columns(columns).execute();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('decommission_requests').execute();
}
