import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SENDS_PER_SECOND_AT_CAPACITY } from '../src/delivery/feeds/delivery-pace';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY, FIXTURE_RECORDS } from './support/fixtures';
import { startLoad } from './support/load';
import { migrateAndImport, type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { waitUntil } from './support/wait';
import { WebhookReceiver } from './support/webhook-receiver';
import { DELIVERY_TEST_ENV } from './support/webhooks';

/** Refused decommissions made before the subscriptions: the backlog they start from. */
const BACKLOG = 1_000;
/** Subscriptions to the one receiver: one alone goes no faster than a round trip through a loop busy with requests, ten do. */
const SUBSCRIPTIONS = 10;
/** How long the subscription delivers while the service is kept at capacity. */
const AT_CAPACITY_MS = 1_500;

/*
 * SQLite only: what is paced is the event loop's time, whatever the engine; on PostgreSQL a page of the
 * trail waits on the database, and a test's client cannot keep the service's loop busy enough to tell.
 */
describe('webhook delivery while the service answers requests at capacity [sqlite]', () => {
  let cwd: string;
  let database: TestDatabase;
  let server: RunningServer;
  let receiver: WebhookReceiver;
  let auditor: string;
  let admiral: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-delivery-load-'));
    database = await createTestDatabase('sqlite', cwd);
    const env = { DATABASE_URL: database.url, JWT_SECRET: 'delivery-load-secret-of-at-least-32-chars', SEED_DEMO: 'false', MIGRATE_ON_START: 'false', RATE_LIMIT_ENABLED: 'false', ...DELIVERY_TEST_ENV };
    await migrateAndImport(cwd, env, FIXTURE_RECORDS);
    const token = async (sub: string, clearance: number) => (await runScript(SCRIPTS.token, ['--sub', sub, '--clearance', String(clearance)], { cwd, env })).stdout.trim();
    [auditor, admiral] = [await token('auditor', 7), await token('admiral', 9)];
    const cadet = await token('cadet', 3);
    server = await startServer({ cwd, env });
    receiver = await WebhookReceiver.start();
    const refusals = startLoad({ url: server.url, bearer: `Bearer ${cadet}`, next: () => ['/v1/assets/TIE-0001', { method: 'DELETE', body: JSON.stringify(DECOMMISSION_BODY) }], timeoutMs: 10_000 });
    await waitUntil(() => refusals.outcomes().length >= BACKLOG, 'the backlog of refusals', 60_000);
    await refusals.stop();
  });

  after(async () => {
    await server?.stop();
    await receiver?.close();
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('sends at the pace kept at capacity while requests keep the event loop busy, then catches up at full speed in chain order once they stop', async () => {
    // Pages of the trail: each costs the service far more than the client, so a few workers keep its loop busy.
    const pages = startLoad({ url: server.url, bearer: `Bearer ${auditor}`, next: () => ['/v1/audit/events?limit=100', {}], workers: 24, timeoutMs: 10_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let subscription = 0; subscription < SUBSCRIPTIONS; subscription++) {
        const created = await fetch(`${server.url}/v1/webhooks`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${admiral}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url: `${receiver.url}/${subscription}`, start: 'beginning' }),
        });
        assert.equal(created.status, 201, await created.text());
      }
      const subscribedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, AT_CAPACITY_MS));
      const atCapacity = receiver.received.length;
      const seconds = (performance.now() - subscribedAt) / 1000;
      // The pace, with room for the window before the load was seen (up to 100 ms at full speed) and a loaded machine's timers.
      assert.ok(atCapacity <= SENDS_PER_SECOND_AT_CAPACITY * seconds * 2 + 200, `${atCapacity} deliveries in ${seconds.toFixed(1)} s at capacity, of over ${BACKLOG * SUBSCRIPTIONS}`);
    } finally {
      await pages.stop();
    }
    const loadEndedAt = performance.now();
    const newest = await fetch(`${server.url}/v1/audit/events?limit=1`, { headers: { Authorization: `Bearer ${auditor}` } });
    const [{ id: head }] = ((await newest.json()) as { data: { events: { id: number }[] } }).data.events;
    const arrivalsOf = (subscription: number) => receiver.received.filter((delivery) => delivery.path === `/hooks/fleet/${subscription}`).map((delivery) => delivery.eventId);
    const allArrived = () => Array.from({ length: SUBSCRIPTIONS }, (_, subscription) => new Set(arrivalsOf(subscription)).size).every((arrived) => arrived === head);
    await waitUntil(allArrived, () => `${receiver.received.length} of ${SUBSCRIPTIONS * head} delivered after the load`, 60_000);
    const catchUpSeconds = (performance.now() - loadEndedAt) / 1000;
    // At the pace alone the rest would take over (SUBSCRIPTIONS * head - 300) / SENDS_PER_SECOND_AT_CAPACITY seconds (about 97).
    assert.ok(catchUpSeconds < (SUBSCRIPTIONS * head) / SENDS_PER_SECOND_AT_CAPACITY / 4, `caught up in ${catchUpSeconds.toFixed(1)} s`);
    for (let subscription = 0; subscription < SUBSCRIPTIONS; subscription++) {
      const arrivals = arrivalsOf(subscription);
      assert.deepEqual(arrivals, [...arrivals].sort((a, b) => a - b), `subscription ${subscription}: the whole trail, in chain order`);
    }
  });
});
