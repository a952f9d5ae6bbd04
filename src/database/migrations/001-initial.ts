import { Kysely } from 'kysely';
import { autoIncrementKey, bytewiseText } from './schema-helpers';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('assets')
    .addColumn('asset_id', bytewiseText(db), (col) => col.primaryKey())
    .addColumn('asset_type', 'text', (col) => col.notNull())
    .addColumn('former_pilot', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('active'))
    .addColumn('decommission_reason', 'text')
    .addColumn('decommissioned_at', 'text')
    .addColumn('authorized_by', 'text')
    .execute();
  await db.schema.createIndex('assets_status_idx').on('assets').columns(['status', 'asset_id']).execute();

  await db.schema
    .createTable('vessels')
    .addColumn('id', bytewiseText(db), (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('class', 'text', (col) => col.notNull())
    .addColumn('length', 'text', (col) => col.notNull())
    .addColumn('crew', 'integer', (col) => col.notNull())
    .addColumn('commander', 'text', (col) => col.notNull())
    .addColumn('sector', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('vessels_sector_idx').on('vessels').columns(['sector', 'id']).execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('occurred_at', 'text', (col) => col.notNull())
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
  await db.schema.createIndex('audit_events_asset_idx').on('audit_events').columns(['asset_id', 'id']).execute();
  await db.schema.createIndex('audit_events_outcome_idx').on('audit_events').columns(['outcome', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  await db.schema.dropTable('vessels').execute();
  await db.schema.dropTable('assets').execute();
}
