import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadAppConfig } from '../src/config';
import type { Kysely } from 'kysely';
import { createDatabase, type DB } from '../src/database';
import { GROUP_MAX } from '../src/delivery/feeds/feed-runner';
import { createTestDatabase, describeEachDatabase, type TestDatabase, type TestEngine } from './support/databases';
import { DECOMMISSION_BODY, FIXTURE_RECORDS } from './support/fixtures';
import { migrateAndImport, type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { waitUntil } from './support/wait';
import { verifiedBody, WebhookReceiver } from './support/webhook-receiver';
import { DELIVERY_TEST_ENV, type Subscription, WebhooksApi } from './support/webhooks';

const LEASE_MS = 3_000;

/** Real server processes on one database, a receiver, and a cadet whose refused decommissions are the events. */
class DeliveryBed {
  cwd = '';
  env: Record<string, string> = {};
  db!: Kysely<DB>;
  receiver!: WebhookReceiver;
  readonly servers: RunningServer[] = [];
  private database?: TestDatabase;
  private cadet = '';
  private admiral = '';

  async open(engine: TestEngine, name: string): Promise<void> {
    this.cwd = mkdtempSync(join(tmpdir(), `fleet-registry-${name}-`));
    this.database = await createTestDatabase(engine, this.cwd);
    this.env = {
      DATABASE_URL: this.database.url,
      JWT_SECRET: 'webhook-crash-secret-of-at-least-32-chars',
      SEED_DEMO: 'false',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_ENABLED: 'false',
      ...DELIVERY_TEST_ENV,
      WEBHOOK_LEASE_MS: String(LEASE_MS),
    };
    await migrateAndImport(this.cwd, this.env, FIXTURE_RECORDS);
    this.cadet = (await runScript(SCRIPTS.token, ['--sub', 'cadet', '--clearance', '3'], { cwd: this.cwd, env: this.env })).stdout.trim();
    this.admiral = (await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd: this.cwd, env: this.env })).stdout.trim();
    this.db = createDatabase(loadAppConfig(this.env, this.cwd).database);
    this.receiver = await WebhookReceiver.start();
  }

  async start(env: Record<string, string> = {}): Promise<RunningServer> {
    const server = await startServer({ cwd: this.cwd, env: { ...this.env, ...env } });
    this.servers.push(server);
    return server;
  }

  /** The subscriptions' API, through `server`. */
  api(server: RunningServer): WebhooksApi {
    return new WebhooksApi(server.url, `Bearer ${this.admiral}`);
  }

  /** One refused decommission through `server`; false when it got no answer (the server was killed). */
  async decide(server: RunningServer): Promise<boolean> {
    try {
      const response = await fetch(`${server.url}/v1/assets/TIE-0001`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${this.cadet}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(DECOMMISSION_BODY),
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      return response.status === 403;
    } catch {
      return false;
    }
  }

  /** The ids of every event after the subscription's start, in chain order. */
  async eventsSince(subscription: Subscription): Promise<number[]> {
    const rows = await this.db.selectFrom('audit_events').select('id').where('id', '>', subscription.cursor).orderBy('id').execute();
    return rows.map((row) => Number(row.id));
  }

  /** Waits until every event since the subscription started has reached the receiver, and checks they first came in chain order. */
  async expectEveryEventDelivered(subscription: Subscription): Promise<void> {
    let ids: number[] = [];
    await waitUntil(
      async () => {
        ids = await this.eventsSince(subscription);
        return ids.every((id) => this.receiver.received.some((delivery) => delivery.eventId === id));
      },
      () => `missing: ${ids.filter((id) => !this.receiver.firstArrivals().includes(id)).join(', ')}`,
      30_000,
    );
    assert.deepEqual(this.receiver.firstArrivals(), ids, 'every event, first arrived in chain order');
    for (const delivery of this.receiver.received) {
      verifiedBody(delivery, subscription.secret);
    }
  }

  async kill(server: RunningServer): Promise<void> {
    server.child.kill('SIGKILL');
    if (server.child.exitCode === null && server.child.signalCode === null) {
      await once(server.child, 'exit');
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
    await this.receiver?.close();
    await this.db?.destroy();
    await this.database?.drop();
    rmSync(this.cwd, { recursive: true, force: true });
  }
}

describeEachDatabase('webhook delivery across a SIGKILL and a restart', (engine) => {
  const bed = new DeliveryBed();
  let subscription: Subscription;

  before(() => bed.open(engine, 'webhook-crash'));
  after(() => bed.close());

  it('loses no event when the delivering process is SIGKILLed mid-stream: after a restart every event arrives, first in chain order', async () => {
    let server = await bed.start();
    subscription = await bed.api(server).subscribe(bed.receiver.url);
    let deciding = true;
    const decisions = (async () => {
      while (deciding) {
        await bed.decide(server);
      }
    })();
    await waitUntil(() => bed.receiver.received.length >= 20, 'deliveries under way', 30_000);
    await bed.kill(server);
    const deliveredBeforeKill = bed.receiver.received.length;
    server = await bed.start();
    await waitUntil(() => bed.receiver.received.length > deliveredBeforeKill + 10, 'delivery resumed after the restart', 30_000);
    deciding = false;
    await decisions;
    await bed.expectEveryEventDelivered(subscription);
    // What arrived twice: the deliveries whose group's write had not committed, and the one in flight.
    const firstBodies = new Map<number, string>();
    let twice = 0;
    for (const { eventId, body } of bed.receiver.received) {
      if (firstBodies.has(eventId)) {
        twice++;
        assert.equal(body, firstBodies.get(eventId), `event ${eventId} sent again as it was, under the same webhook-id`);
      } else {
        firstBodies.set(eventId, body);
      }
    }
    assert.ok(twice <= GROUP_MAX, `${twice} events arrived twice, at most one group (${GROUP_MAX})`);
  });

  it("writes the last deliveries' cursor on SIGTERM before handing the lease back: a restart sends none of them again", async () => {
    await Promise.all(bed.servers.map((server) => server.stop()));
    let server = await bed.start();
    for (let n = 0; n < 20; n++) {
      assert.equal(await bed.decide(server), true);
    }
    await bed.expectEveryEventDelivered(subscription);
    const [last] = (await bed.eventsSince(subscription)).slice(-1);
    const arrived = bed.receiver.received.length;
    await server.stop();
    const { cursor } = await bed.db.selectFrom('delivery_feeds').select('cursor').where('feed_id', '=', subscription.id).executeTakeFirstOrThrow();
    assert.equal(Number(cursor), last, 'the cursor past the last delivery');
    server = await bed.start();
    assert.equal(await bed.decide(server), true);
    await bed.expectEveryEventDelivered(subscription);
    assert.deepEqual(
      bed.receiver.received.slice(arrived).map(({ eventId }) => eventId),
      (await bed.eventsSince(subscription)).filter((id) => id > last),
      'only the new event',
    );
  });

  it('refuses, at connection time, a receiver on a private network once the instance no longer allows them: the attempt recorded, nothing received', async () => {
    await Promise.all(bed.servers.map((server) => server.stop()));
    const server = await bed.start({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    const before = bed.receiver.received.length;
    const [last] = (await bed.eventsSince(subscription)).slice(-1);
    assert.equal(await bed.decide(server), true);
    const api = bed.api(server);
    await waitUntil(async () => (await api.attempts(subscription.id)).some((row) => row.event_id > last && row.error !== null), 'a refused attempt recorded', 15_000);
    const refused = (await api.attempts(subscription.id)).filter((row) => row.event_id > last);
    assert.equal(refused[0].status, null);
    assert.match(refused[0].error ?? '', /^WEBHOOK_ADDRESS_FORBIDDEN: 127\.0\.0\.1, a loopback address/);
    assert.doesNotMatch(refused[0].error ?? '', /whsec_/);
    assert.equal(bed.receiver.received.length, before, 'nothing reached the receiver');
    assert.equal((await api.find(subscription.id)).cursor, last, 'the event is not passed');
  });
});

describe('webhook delivery on two PostgreSQL instances', { skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL' }, () => {
  const bed = new DeliveryBed();
  let subscription: Subscription;

  before(() => bed.open('postgres', 'webhook-takeover'));
  after(() => bed.close());

  /** The pid in the lease's owner (host/pid/uuid): which process delivers. */
  const leaseOwnerPid = async () => {
    const { lease_owner } = await bed.db.selectFrom('delivery_feeds').select('lease_owner').where('feed_id', '=', subscription.id).executeTakeFirstOrThrow();
    return Number(lease_owner?.split('/')[1]);
  };

  it('hands the subscription over within WEBHOOK_LEASE_MS when the delivering instance is SIGKILLed, and continues from the cursor', async () => {
    const servers = [await bed.start(), await bed.start()];
    subscription = await bed.api(servers[0]).subscribe(bed.receiver.url);
    const pids = servers.map((server) => server.child.pid);
    await waitUntil(async () => pids.includes(await leaseOwnerPid()), 'a lease taken by one of the instances', 15_000);
    const holder = await leaseOwnerPid();
    const [dying, surviving] = servers[0].child.pid === holder ? [servers[0], servers[1]] : [servers[1], servers[0]];
    assert.equal(dying.child.pid, holder, 'one of the two instances delivers');
    for (let n = 0; n < 5; n++) {
      assert.equal(await bed.decide(surviving), true);
    }
    await waitUntil(() => bed.receiver.received.length >= 5, 'delivered by the first instance', 15_000);
    await bed.kill(dying);
    const killedAt = Date.now();
    await waitUntil(async () => (await leaseOwnerPid()) === surviving.child.pid, 'the other instance took the lease', 15_000);
    const tookOverMs = Date.now() - killedAt;
    assert.ok(tookOverMs <= LEASE_MS, `taken over in ${tookOverMs} ms, within WEBHOOK_LEASE_MS=${LEASE_MS}`);
    for (let n = 0; n < 5; n++) {
      assert.equal(await bed.decide(surviving), true);
    }
    await bed.expectEveryEventDelivered(subscription);
  });
});
