import type { Kysely } from 'kysely';
import type { DB } from '../../src/database';
import { SecretBox } from '../../src/delivery/webhooks/secret-box';
import { newWebhookSecret } from '../../src/delivery/webhooks/webhook-secret';
import type { TestApp } from './test-app';

/** The database the subscriptions are made in, and the box that seals their secrets as the servers' own does. */
export interface SubscriptionStore {
  db: Kysely<DB>;
  secretBox: SecretBox;
}

export const storeOf = (t: TestApp): SubscriptionStore => ({ db: t.db, secretBox: t.app.get(SecretBox) });

/** What the environment of a delivery test sets: plain http to 127.0.0.1, and quick retries and leases. */
export const DELIVERY_TEST_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_LEASE_MS: '1200',
  WEBHOOK_MAX_ATTEMPTS: '4',
};

export interface Subscription {
  id: string;
  secret: string;
  /** The last event before delivery starts. */
  cursor: number;
}

/** A subscription from now on, to `url`. */
export async function subscribe({ db, secretBox }: SubscriptionStore, url: string, filter: object = {}): Promise<Subscription> {
  const id = crypto.randomUUID();
  const secret = newWebhookSecret();
  const now = new Date().toISOString();
  const newest = await db.selectFrom('audit_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  const cursor = Number(newest?.id ?? 0);
  await db.insertInto('webhook_subscriptions').values({ feed_id: id, url, filter: JSON.stringify(filter), secret: secretBox.seal(secret), created_by: 'admiral' }).execute();
  await db.insertInto('delivery_feeds').values({ feed_id: id, kind: 'webhook', state: 'active', cursor, created_at: now, updated_at: now }).execute();
  return { id, secret, cursor };
}

export async function resume(t: TestApp, id: string): Promise<void> {
  await t.db.updateTable('delivery_feeds').set({ state: 'active', attempts: 0, next_attempt_at: null }).where('feed_id', '=', id).execute();
}

export async function unsubscribe(t: TestApp, id: string): Promise<void> {
  await t.db.deleteFrom('delivery_feeds').where('feed_id', '=', id).execute();
  await t.db.deleteFrom('webhook_subscriptions').where('feed_id', '=', id).execute();
}

export const feedRow = ({ db }: { db: Kysely<DB> }, id: string) => db.selectFrom('delivery_feeds').selectAll().where('feed_id', '=', id).executeTakeFirstOrThrow();

export const attemptRows = ({ db }: { db: Kysely<DB> }, id: string) =>
  db.selectFrom('delivery_attempts').select(['event_id', 'attempt', 'status', 'error']).where('feed_id', '=', id).orderBy('id').execute();
