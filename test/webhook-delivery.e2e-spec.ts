import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { decommission, listAuditEvents } from './support/http';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';
import { type ReceivedDelivery, verifiedBody, WebhookReceiver } from './support/webhook-receiver';
import { DELIVERY_TEST_ENV, type Subscription, WebhooksApi } from './support/webhooks';

interface ListedEvent {
  id: number;
  action: string;
  outcome: string;
  occurred_at: string;
}

const verifies = (delivery: ReceivedDelivery, secret: string) => {
  try {
    verifiedBody(delivery, secret);
    return true;
  } catch {
    return false;
  }
};

describeEachDatabase('webhook delivery: signed, in chain order, through failures', (engine) => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let subscription: Subscription;
  let api: WebhooksApi;

  before(async () => {
    t = await startTestApp({ engine, env: DELIVERY_TEST_ENV });
    api = new WebhooksApi(await listenOnLoopback(t), t.bearer('admiral', 9));
  });
  after(() => t.close());
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    subscription = await api.subscribe(receiver.url);
  });
  afterEach(async () => {
    await api.unsubscribe(subscription.id);
    await receiver.close();
  });

  /** The events after `cursor` as GET /v1/audit/events shows them, oldest first. */
  async function listedAfter(cursor: number): Promise<ListedEvent[]> {
    const events = (await listAuditEvents(t, 'limit=100', t.bearer('admiral', 9)).expect(200)).body.data.events as ListedEvent[];
    return events.filter((event) => event.id > cursor).reverse();
  }

  /**
   * `count` decisions, each an event (a cadet's refused decommission); returns the ids of the events the
   * subscription is to deliver, oldest first: its own creation's, then these.
   */
  async function decide(count: number): Promise<number[]> {
    for (let n = 0; n < count; n++) {
      await decommission(t, 'TIE-0001', t.bearer(`cadet-${n}`, 3)).expect(403);
    }
    return (await listedAfter(subscription.cursor)).map((event) => event.id);
  }

  const arrivedAll = (ids: number[]) => () => ids.every((id) => receiver.received.some((delivery) => delivery.eventId === id));

  it('delivers each event signed with the secret, its body the event exactly as GET /v1/audit/events shows it', async () => {
    const ids = await decide(3);
    await waitUntil(arrivedAll(ids), () => `delivered: ${receiver.firstArrivals().join(', ')} of ${ids.join(', ')}`);
    const listed = await listedAfter(subscription.cursor);
    for (const delivery of receiver.received) {
      const event = listed.find((shown) => shown.id === delivery.eventId);
      assert.ok(event);
      assert.equal(delivery.headers['content-type'], 'application/json');
      assert.deepEqual(verifiedBody(delivery, subscription.secret), { type: event.action, timestamp: event.occurred_at, data: event });
      assert.deepEqual(JSON.parse(delivery.body).data, event);
    }
    assert.deepEqual(receiver.firstArrivals(), ids);
    await waitUntil(async () => (await api.find(subscription.id)).cursor === ids[ids.length - 1], 'the cursor moved past the last event');
  });

  it('signs with both secrets after a rotation, from the next delivery on', async () => {
    const [created] = await decide(0);
    await waitUntil(() => receiver.received.length === 1, 'the creation delivered');
    const rotated = await api.rotateSecret(subscription.id);
    const ids = (await listedAfter(created)).map((event) => event.id);
    await waitUntil(arrivedAll(ids), () => `delivered: ${receiver.firstArrivals().join(', ')} of ${ids.join(', ')}`);
    const [first, ...later] = receiver.received;
    assert.equal(String(first.headers['webhook-signature']).split(' ').length, 1);
    assert.equal(verifies(first, rotated), false);
    for (const delivery of later) {
      assert.equal(String(delivery.headers['webhook-signature']).split(' ').length, 2);
      assert.ok(verifies(delivery, rotated) && verifies(delivery, subscription.secret), 'verifies with the new secret and the old');
    }
  });

  it('retries a failing event (errors, a hung receiver) before any later one, with the same webhook-id, and records each attempt', async () => {
    receiver.answers.push(500, 503, 'hang');
    const ids = await decide(4);
    await waitUntil(arrivedAll(ids), () => `delivered: ${receiver.firstArrivals().join(', ')} of ${ids.join(', ')}`, 15_000);
    assert.deepEqual(
      receiver.received.map((delivery) => delivery.eventId),
      [ids[0], ids[0], ids[0], ids[0], ...ids.slice(1)],
      'the first event four times, then the others in order',
    );
    const timestamps = receiver.received.slice(0, 4).map((delivery) => verifiedBody(delivery, subscription.secret) && delivery.headers['webhook-timestamp']);
    assert.equal(timestamps.length, 4, 'every retry signed');
    await waitUntil(async () => (await api.find(subscription.id)).cursor === ids[ids.length - 1], 'the cursor moved past the last event');
    const attempts = (await api.attempts(subscription.id)).filter((row) => row.event_id === ids[0]);
    assert.deepEqual(
      attempts.map(({ attempt, status }) => ({ attempt, status })),
      [
        { attempt: 1, status: 500 },
        { attempt: 2, status: 503 },
        { attempt: 3, status: null },
        { attempt: 4, status: 204 },
      ],
    );
    assert.match(attempts[2].error ?? '', /no answer within WEBHOOK_TIMEOUT_MS/);
  });

  it('turns the subscription failing after WEBHOOK_MAX_ATTEMPTS failed attempts, sends nothing more, and on resume continues from the same event', async () => {
    receiver.answers.push(500, 500, 500, 500);
    const ids = await decide(3);
    await waitUntil(async () => (await api.find(subscription.id)).state === 'failing', 'the subscription turned failing', 15_000);
    const failing = await api.find(subscription.id);
    assert.deepEqual([failing.cursor, failing.attempts, failing.last_error], [subscription.cursor, 4, 'HTTP 500']);
    assert.deepEqual(
      receiver.received.map((delivery) => delivery.eventId),
      [ids[0], ids[0], ids[0], ids[0]],
    );
    const metrics = (await t.http().get('/metrics').expect(200)).text;
    assert.match(metrics, new RegExp(`fleet_registry_delivery_feeds_failing_total\\{feed="${subscription.id}"\\} 1`));
    assert.match(metrics, new RegExp(`fleet_registry_delivery_attempts_failed_total\\{feed="${subscription.id}"\\} 4`));

    await api.resume(subscription.id);
    const resumed = (await listedAfter(subscription.cursor)).map((event) => event.id);
    assert.ok(resumed.length > ids.length, 'the resume is an event too');
    await waitUntil(arrivedAll(resumed), () => `delivered: ${receiver.firstArrivals().join(', ')} of ${resumed.join(', ')}`, 15_000);
    assert.deepEqual(receiver.firstArrivals(), resumed, 'from the same event, none skipped');
    assert.equal(receiver.received.filter((delivery) => delivery.eventId === ids[0]).length, 5);
  });

  it('sends only the events the filter takes, and moves its cursor past the others', async () => {
    const filtered = await api.subscribe(receiver.url, { outcomes: ['allowed'] });
    await decide(2);
    await decommission(t, 'TIE-0002', t.bearer('officer', 7)).expect(200);
    const everything = await listedAfter(subscription.cursor);
    const allowed = everything.filter((event) => event.id > filtered.cursor && event.outcome === 'allowed');
    assert.deepEqual(
      allowed.map((event) => event.action),
      ['webhook.create', 'asset.decommission'],
    );
    const signedWith = (secret: string) => receiver.received.filter((delivery) => verifies(delivery, secret)).map((delivery) => delivery.eventId);
    await waitUntil(() => receiver.received.length === everything.length + allowed.length, () => `delivered: ${receiver.received.length}`);
    assert.deepEqual(signedWith(filtered.secret), allowed.map((event) => event.id));
    assert.deepEqual(signedWith(subscription.secret), everything.map((event) => event.id));
    const last = everything[everything.length - 1].id;
    await waitUntil(async () => (await api.find(filtered.id)).cursor === last, 'the filtered feed moved its cursor past the last event');
    await api.unsubscribe(filtered.id);
  });
});
