import { SecretBox } from '../../src/delivery/webhooks/secret-box';
import { newWebhookSecret } from '../../src/delivery/webhooks/webhook-secret';
import type { TestApp } from './test-app';

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
export async function subscribe(t: TestApp, url: string, filter: object = {}): Promise<Subscription> {
  const id = crypto.randomUUID();
  const secret = newWebhookSecret();
  const now = new Date().toISOString();
  const newest = await t.db.selectFrom('audit_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  const cursor = Number(newest?.id ?? 0);
  await t.db.insertInto('webhook_subscriptions').values({ feed_id: id, url, filter: JSON.stringify(filter), secret: t.app.get(SecretBox).seal(secret), created_by: 'admiral' }).execute();
  await t.db.insertInto('delivery_feeds').values({ feed_id: id, kind: 'webhook', state: 'active', cursor, created_at: now, updated_at: now }).execute();
  return { id, secret, cursor };
}

export async function resume(t: TestApp, id: string): Promise<void> {
  await t.db.updateTable('delivery_feeds').set({ state: 'active', attempts: 0, next_attempt_at: null }).where('feed_id', '=', id).execute();
}

export async function unsubscribe(t: TestApp, id: string): Promise<void> {
  await t.db.deleteFrom('delivery_feeds').where('feed_id', '=', id).execute();
  await t.db.deleteFrom('webhook_subscriptions').where('feed_id', '=', id).execute();
}

export const feedRow = (t: TestApp, id: string) => t.db.selectFrom('delivery_feeds').selectAll().where('feed_id', '=', id).executeTakeFirstOrThrow();

export const attemptRows = (t: TestApp, id: string) =>
  t.db.selectFrom('delivery_attempts').select(['event_id', 'attempt', 'status', 'error']).where('feed_id', '=', id).orderBy('id').execute();
