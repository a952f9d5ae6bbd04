import { type Kysely, sql } from 'kysely';

/**
 * A decommission request holds one asset or, opened by a batch, up to 100: each a row of
 * decommission_request_assets, at its `position` in the order the request gave them. The rule "an
 * asset is in at most one pending request" is this table's partial unique index on asset_id over the
 * rows still held (`pending` = 1): one mechanism, enforced by the database, for single and batch
 * requests alike, so two instances racing cannot both open a request over a shared asset. The service
 * clears `pending` in the transaction that moves its request out of pending (approve, reject, withdraw,
 * expire). A 0/1 integer rather than a copy of the request's state: the index needs only whether the
 * asset is held, and an integer is written alike on SQLite (no booleans) and PostgreSQL, where a
 * partial index is the same plain SQL; a trigger would need each engine's own language.
 *
 * decommission_requests keeps asset_id, its first asset, which the API shows as asset_id; its partial
 * unique index (one pending request per asset) and its listing index by asset give way to this table's.
 * batch_id names a batch request's decommission (the id its approval's answer and events carry), null
 * for a request opened by DELETE or a recommission. Existing requests are copied in, each its one
 * asset, held while pending. A migration is history: it imports nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('decommission_request_assets')
    .addColumn('request_id', 'text', (col) => col.notNull())
    .addColumn('asset_id', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('pending', 'integer', (col) => col.notNull().check(sql`pending in (0, 1)`))
    .addPrimaryKeyConstraint('decommission_request_assets_pk', ['request_id', 'position'])
    .addUniqueConstraint('decommission_request_assets_once', ['request_id', 'asset_id'])
    .execute();
  await db
    .insertInto('decommission_request_assets')
    .columns(['request_id', 'asset_id', 'position', 'pending'])
    .expression((eb) =>
      eb
        .selectFrom('decommission_requests')
        .select(['request_id', 'asset_id', sql.lit(0).as('position'), sql<number>`case when state = 'pending' then 1 else 0 end`.as('pending')]),
    )
    .execute();
  await db.schema
    .createIndex('decommission_request_assets_one_pending_idx')
    .on('decommission_request_assets')
    .column('asset_id')
    .unique()
    .where(sql.ref('pending'), '=', sql.lit(1))
    .execute();
  // The listing by asset: the requests that hold it.
  await db.schema.createIndex('decommission_request_assets_asset_idx').on('decommission_request_assets').columns(['asset_id', 'request_id']).execute();
  await db.schema.dropIndex('decommission_requests_one_pending_idx').execute();
  await db.schema.dropIndex('decommission_requests_asset_idx').execute();
  await db.schema.alterTable('decommission_requests').addColumn('batch_id', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decommission_requests').dropColumn('batch_id').execute();
  await db.schema.createIndex('decommission_requests_asset_idx').on('decommission_requests').columns(['asset_id', 'id']).execute();
  await db.schema
    .createIndex('decommission_requests_one_pending_idx')
    .on('decommission_requests')
    .column('asset_id')
    .unique()
    .where(sql.ref('state'), '=', sql.lit('pending'))
    .execute();
  await db.schema.dropTable('decommission_request_assets').execute();
}
