import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { databaseClock, type DB, readPage } from '../../database';

/** What the API shows of a subscription, from its row and its feed's. */
const SUBSCRIPTION_COLUMNS = [
  'webhook_subscriptions.feed_id as id',
  'webhook_subscriptions.url',
  'webhook_subscriptions.description',
  'webhook_subscriptions.filter',
  'delivery_feeds.state',
  'delivery_feeds.cursor',
  'delivery_feeds.attempts',
  'delivery_feeds.next_attempt_at',
  'delivery_feeds.last_error',
  'delivery_feeds.created_at',
] as const;

const ATTEMPT_COLUMNS = ['event_id', 'attempt', 'status', 'error', 'duration_ms', 'attempted_at'] as const;

export interface NewSubscription {
  id: string;
  url: string;
  description: string | null;
  /** JSON. */
  filter: string;
  /** Sealed by SecretBox. */
  secret: string;
  cursor: number;
  created_by: string;
}

/** A window of a newest-first listing: from `offset`, or before the row with id `beforeId` (keyset). */
export interface Window {
  limit: number;
  offset?: number;
  beforeId?: number;
}

/** The subscriptions (webhook_subscriptions and their delivery_feeds rows) and their delivery attempts. */
@Injectable()
export class WebhookSubscriptionsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async count(db: Kysely<DB> = this.db): Promise<number> {
    const { total } = await db
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  /** The feed and the subscription, inside `trx`: its time is the database's, as its audit event's is. */
  async insert(trx: Kysely<DB>, { id, cursor, ...subscription }: NewSubscription): Promise<void> {
    const now = databaseClock(trx);
    await trx.insertInto('delivery_feeds').values({ feed_id: id, kind: 'webhook', state: 'active', cursor, created_at: now, updated_at: now }).execute();
    await trx.insertInto('webhook_subscriptions').values({ feed_id: id, ...subscription }).execute();
  }

  find(id: string, db: Kysely<DB> = this.db) {
    return this.subscription(db, id).executeTakeFirst();
  }

  /** A subscription `trx` has just written or changed, which is there. */
  findWritten(trx: Kysely<DB>, id: string) {
    return this.subscription(trx, id).executeTakeFirstOrThrow();
  }

  /** Newest first: `limit` rows (each with its keyset position) and, when more follow, the last's position (the next page's cursor). */
  async findPage(window: Window) {
    const { rows, more } = await readPage(
      this.joined(this.db)
        .select(['delivery_feeds.id as position', ...SUBSCRIPTION_COLUMNS])
        .$if(window.beforeId !== undefined, (query) => query.where('delivery_feeds.id', '<', window.beforeId as number))
        .orderBy('delivery_feeds.id', 'desc'),
      window,
    );
    return { rows, lastId: more ? rows[rows.length - 1].position : undefined };
  }

  /** What the sender needs: the url, the filter and the sealed secrets. */
  findTarget(id: string) {
    return this.db
      .selectFrom('webhook_subscriptions')
      .select(['url', 'filter', 'secret', 'previous_secret', 'previous_secret_until'])
      .where('feed_id', '=', id)
      .executeTakeFirst();
  }

  /** Removes the subscription, its feed and its attempts, inside `trx`; false when there was none. */
  async delete(trx: Kysely<DB>, id: string): Promise<boolean> {
    const removed = await trx.deleteFrom('webhook_subscriptions').where('feed_id', '=', id).executeTakeFirst();
    await trx.deleteFrom('delivery_feeds').where('feed_id', '=', id).execute();
    await trx.deleteFrom('delivery_attempts').where('feed_id', '=', id).execute();
    return removed.numDeletedRows > 0n;
  }

  /** Active again, its failed attempts forgotten, the next attempt at once: from the same event (the cursor stays). */
  async resume(trx: Kysely<DB>, id: string): Promise<boolean> {
    const updated = await trx
      .updateTable('delivery_feeds')
      .set({ state: 'active', attempts: 0, next_attempt_at: null, updated_at: databaseClock(trx) })
      .where('feed_id', '=', id)
      .where('kind', '=', 'webhook')
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n;
  }

  /** The new sealed secret in place; the one it replaces keeps signing until `previousUntil`. */
  async rotateSecret(trx: Kysely<DB>, id: string, sealed: string, previousUntil: string): Promise<boolean> {
    const updated = await trx
      .updateTable('webhook_subscriptions')
      .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_until: previousUntil, secret: sealed }))
      .where('feed_id', '=', id)
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n;
  }

  /** A subscription's attempts, newest first, keyset-paged by id. */
  async findAttempts(id: string, window: Window) {
    const { rows, more } = await readPage(
      this.db
        .selectFrom('delivery_attempts')
        .select(['id', ...ATTEMPT_COLUMNS])
        .where('feed_id', '=', id)
        .$if(window.beforeId !== undefined, (query) => query.where('id', '<', window.beforeId as number))
        .orderBy('id', 'desc'),
      window,
    );
    return { rows, lastId: more ? rows[rows.length - 1].id : undefined };
  }

  async countAttempts(id: string): Promise<number> {
    const { total } = await this.db
      .selectFrom('delivery_attempts')
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .where('feed_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  private subscription(db: Kysely<DB>, id: string) {
    return this.joined(db).select(SUBSCRIPTION_COLUMNS).where('webhook_subscriptions.feed_id', '=', id);
  }

  private joined(db: Kysely<DB>) {
    return db.selectFrom('webhook_subscriptions').innerJoin('delivery_feeds', 'delivery_feeds.feed_id', 'webhook_subscriptions.feed_id');
  }
}
