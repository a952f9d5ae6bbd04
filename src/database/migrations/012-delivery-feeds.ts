import { type Kysely, sql } from 'kysely';
import { autoIncrementKey, bytewiseText } from './schema-helpers';

/**
 * Pushing the trail to the systems that act on it. A feed (a webhook subscription, or the syslog feed)
 * keeps its own place in the chain, `cursor`, the last event it has passed (delivered, or not matched
 * by its filter), so every instance and every restart continues from the database. One instance at a
 * time delivers a feed: the one whose lease has not expired. `attempts` counts the failed attempts at
 * the event after the cursor. A webhook's url, filter and encrypted secrets sit beside its feed; each
 * attempt is kept in delivery_attempts. A migration is history: it imports nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  // Instants are ISO 8601 UTC text, compared as text: bytewise, whatever the database's locale.
  const instant = bytewiseText(db);
  await db.schema
    .createTable('delivery_feeds')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('feed_id', 'text', (col) => col.notNull().unique())
    .addColumn('kind', 'text', (col) => col.notNull().check(sql`kind in ('webhook', 'syslog')`))
    .addColumn('state', 'text', (col) => col.notNull().check(sql`state in ('active', 'failing')`))
    .addColumn('cursor', 'integer', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', instant)
    .addColumn('last_error', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', instant)
    .addColumn('created_at', instant, (col) => col.notNull())
    .addColumn('updated_at', instant, (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('feed_id', 'text', (col) => col.primaryKey())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('filter', 'text', (col) => col.notNull())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', instant)
    .addColumn('created_by', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'integer', autoIncrementKey(db))
    .addColumn('feed_id', 'text', (col) => col.notNull())
    .addColumn('event_id', 'integer', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('attempted_at', instant, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('delivery_attempts_feed_idx').on('delivery_attempts').columns(['feed_id', 'id']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('delivery_attempts').execute();
  await db.schema.dropTable('webhook_subscriptions').execute();
  await db.schema.dropTable('delivery_feeds').execute();
}
