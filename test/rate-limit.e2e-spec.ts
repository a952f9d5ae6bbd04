import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@nestjs/common';
import { countRows } from '../src/database';
import { describeEachDatabase } from './support/databases';
import { decommission, expectErrorBody, listFleet } from './support/http';
import { logLines, startServer, startServers, type RunningServer } from './support/processes';
import { assertRedisAnswers, REDIS_URL } from './support/redis';
import { TcpProxy } from './support/tcp-proxy';
import { waitFor, waitUntil } from './support/wait';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';


/** A client address of its own for each test, so counters never carry over between tests or runs. */
const newClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const FORGED = 'Bearer not.a.token';

const MINUTE_MS = 60_000;

interface Answer {
  status: number;
  sentAt: number;
  answeredAt: number;
}

/**
 * The audit events one flooding client's answers stand for, checking on the way that they follow the
 * denial limit: 30 refusals answered 401 and recorded, then 429 until a minute after the 31st, of which
 * only the first is recorded, then 30 more refusals, and so on. A run slower than a minute lets the
 * first clients blocked start a second window before the last request, so the count comes from the
 * answers rather than from the clock. (The 30 refusals of a window are taken to fall within a
 * minute: 300 of the loop's requests.)
 */
function eventsOfFlood(answers: Answer[]): number {
  let events = 0;
  let refusals = 0;
  let blockedSince: number | undefined;
  for (const [index, { status, sentAt, answeredAt }] of answers.entries()) {
    const place = `answer ${index + 1}`;
    if (status === 401) {
      if (blockedSince !== undefined) {
        assert.ok(answeredAt - blockedSince >= MINUTE_MS, `${place}: 401 only ${answeredAt - blockedSince} ms into the block`);
        blockedSince = undefined;
        refusals = 0;
      }
      refusals += 1;
      events += 1;
    } else {
      assert.equal(status, 429, place);
      if (blockedSince === undefined) {
        assert.equal(refusals, 30, `${place}: the first 429 came after ${refusals} refusals`);
        blockedSince = sentAt;
        events += 1;
      }
    }
  }
  return events;
}

describeEachDatabase('rate limits', (engine) => {
  let t: TestApp;
  const eventCount = () => countRows(t.db, 'audit_events');

  before(async () => {
    Logger.overrideLogger(false);
    // One proxy in front, so each test can speak for a client address of its own.
    t = await startTestApp({ engine, env: { RATE_LIMIT_ENABLED: 'true', TRUST_PROXY: '1' } });
  });
  after(() => t.close());

  it('never limits an honest client: 1,000 valid requests and 20 failed authentications in a minute', async () => {
    const client = newClient();
    const officer = t.bearer('officer-1', 1);
    for (let i = 0; i < 1000; i++) {
      const res = await listFleet(t, 'limit=1', officer).set('X-Forwarded-For', client);
      assert.equal(res.status, 200, `request ${i + 1}: ${res.text}`);
    }
    for (let i = 0; i < 20; i++) {
      expectErrorBody(await listFleet(t, '', FORGED).set('X-Forwarded-For', client), 401, 'UNAUTHENTICATED');
    }
  });

  it('answers the 31st failed authentication of a minute with 429 RATE_LIMITED and Retry-After', async () => {
    const client = newClient();
    for (let i = 0; i < 30; i++) {
      expectErrorBody(await listFleet(t, '', FORGED).set('X-Forwarded-For', client), 401, 'UNAUTHENTICATED');
    }
    const res = await listFleet(t, '', FORGED).set('X-Forwarded-For', client);

    expectErrorBody(res, 429, 'RATE_LIMITED');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${res.headers['retry-after']}`);
    // Another client is not affected.
    expectErrorBody(await listFleet(t, '', FORGED).set('X-Forwarded-For', newClient()), 401, 'UNAUTHENTICATED');
  });

  it('counts denied decommissions the same way, and records the flood once', async () => {
    const client = newClient();
    const lieutenant = t.bearer('lieutenant-6', 6);
    const before = await eventCount();
    for (let i = 0; i < 30; i++) {
      expectErrorBody(await decommission(t, 'TIE-0001', lieutenant).set('X-Forwarded-For', client), 403, 'ASSET_ACCESS_DENIED');
    }
    for (let i = 0; i < 20; i++) {
      expectErrorBody(await decommission(t, 'TIE-0001', lieutenant).set('X-Forwarded-For', client), 429, 'RATE_LIMITED');
    }

    assert.equal(await eventCount(), before + 31);
    const flood = await t.db.selectFrom('audit_events').selectAll().where('reason', '=', 'RATE_LIMITED').where('ip', '=', client).execute();
    assert.deepEqual(
      flood.map((event) => [event.action, event.outcome, event.actor]),
      [['asset.decommission', 'denied', 'lieutenant-6']],
    );
  });

  it('counts the denials of many addresses of one IPv6 /64 as one client (target: the trail grows by at most the denial limit + 1 a window)', async () => {
    const hextet = () => randomInt(0x10000).toString(16);
    const network = `2001:db8:${hextet()}:${hextet()}`;
    const before = await eventCount();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      statuses.push((await listFleet(t, '', FORGED).set('X-Forwarded-For', `${network}:${hextet()}:${hextet()}:${hextet()}:${i + 1}`)).status);
    }

    const grown = (await eventCount()) - before;
    console.log(`# target: 100 failed authentications from 100 addresses of one /64 added ${grown} audit events (bound: 30 denials + 1 flood event)`);
    assert.equal(grown, 31);
    assert.deepEqual([statuses.filter((status) => status === 401).length, statuses.filter((status) => status === 429).length], [30, 70]);
  });

  it('adds 31 events a client and minute (30 denials + 1 flood event) for 3,000 failed authentications from 10 clients', async () => {
    const clients = Array.from({ length: 10 }, newClient);
    const answers: Answer[][] = clients.map(() => []);
    const before = await eventCount();
    const startedAt = Date.now();
    for (let i = 0; i < 3000; i++) {
      const sentAt = Date.now();
      const res = await listFleet(t, '', FORGED).set('X-Forwarded-For', clients[i % clients.length]);
      answers[i % clients.length].push({ status: res.status, sentAt, answeredAt: Date.now() });
    }
    const minuteOrLess = Date.now() - startedAt <= MINUTE_MS;

    const added = (await eventCount()) - before;
    assert.equal(added, answers.reduce((sum, list) => sum + eventsOfFlood(list), 0));
    if (minuteOrLess) {
      assert.equal(added, 310);
    }
  });
});

describe('rate limits on every request', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '50', TRUST_PROXY: '1' } });
  });
  after(() => t.close());

  it('answers a client past its requests per minute with 429 RATE_LIMITED before its token is checked', async () => {
    const client = newClient();
    const officer = t.bearer('officer-1', 1);
    for (let i = 0; i < 50; i++) {
      assert.equal((await listFleet(t, 'limit=1', officer).set('X-Forwarded-For', client)).status, 200);
    }
    const limited = await listFleet(t, 'limit=1', officer).set('X-Forwarded-For', client);
    expectErrorBody(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    expectErrorBody(await listFleet(t, '', FORGED).set('X-Forwarded-For', client), 429, 'RATE_LIMITED');
    assert.equal((await listFleet(t, 'limit=1', officer).set('X-Forwarded-For', newClient())).status, 200);
  });

  it('counts one budget per client across all routes (target: at most the limit + 10% of answers other than 429 a window)', async () => {
    const client = newClient();
    const commander = t.bearer('commander-10', 10);
    const routes = ['/v1/fleet/star-destroyers?limit=1', '/v1/assets?limit=1', '/v1/assets/TIE-0001', '/v1/audit/events?limit=1'];
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      statuses.push((await t.http().get(routes[i % routes.length]).set('Authorization', commander).set('X-Forwarded-For', client)).status);
    }

    const answered = statuses.filter((status) => status !== 429).length;
    console.log(`# target: one client over ${routes.length} routes got ${answered} answers other than 429 out of 200 (limit 50 a minute, bound 55)`);
    assert.equal(answered, 50);
    assert.ok(statuses.slice(0, 50).every((status) => status === 200), statuses.slice(0, 50).join(' '));
  });

  it('never limits the health routes a load balancer polls', async () => {
    const client = newClient();
    for (let i = 0; i < 60; i++) {
      await t.http().get('/health/live').set('X-Forwarded-For', client).expect(200);
    }
  });
});

describe('rate limits turned off', () => {
  it('lets any number of failed authentications through as 401 with RATE_LIMIT_ENABLED=false', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_REQUESTS_PER_MINUTE: '5' } });
    try {
      for (let i = 0; i < 40; i++) {
        expectErrorBody(await listFleet(t, '', FORGED), 401, 'UNAUTHENTICATED');
      }
    } finally {
      await t.close();
    }
  });
});

describe('rate limits shared through Redis by two instances', () => {
  let cwd: string;

  before(async () => {
    await assertRedisAnswers();
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-rate-limit-'));
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  const env = (extra: Record<string, string>) => ({
    // Each instance its own database: only the counters are shared.
    DATABASE_URL: 'sqlite::memory:',
    JWT_SECRET: TEST_JWT_SECRET,
    SEED_DEMO: 'false',
    TRUST_PROXY: '1',
    RATE_LIMIT_DENIALS_PER_MINUTE: '5',
    ...extra,
  });

  /** Three failed authentications through each instance, from one client: what does the sixth get? */
  async function alternate(servers: RunningServer[]): Promise<number[]> {
    const client = newClient();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${servers[i % 2].url}/v1/fleet/star-destroyers`, {
        headers: { Authorization: FORGED, 'X-Forwarded-For': client },
      });
      statuses.push(res.status);
    }
    return statuses;
  }

  it('refuses the sixth failure with 429 when the five before it went through either instance', async () => {
    const servers = await startServers(2, { cwd, env: env({ REDIS_URL }) });
    try {
      assert.deepEqual(await alternate(servers), [401, 401, 401, 401, 401, 429]);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it('is not ready while Redis is unreachable, fails closed, logs one JSON line each way, and is ready again within seconds of its return', async () => {
    const redis = new URL(REDIS_URL);
    const relay = await TcpProxy.start({ host: redis.hostname, port: Number(redis.port || 6379) });
    const server = await startServer({ cwd, env: env({ REDIS_URL: `redis://127.0.0.1:${relay.port}` }) });
    const ready = () => fetch(`${server.url}/health/ready`);
    try {
      // ioredis is ready once its first INFO has been answered, which may come after the first /health/live.
      await waitUntil(async () => (await ready()).status === 200, 'not ready within 10 s');

      await relay.cut();
      const notReady = await waitFor(async () => {
        const res = await ready();
        return res.status === 503 ? ((await res.json()) as object) : undefined;
      });
      assert.deepEqual(notReady, { status: 'error', message: 'The rate-limit store (Redis) is unreachable', error_code: 'SERVICE_UNAVAILABLE' });
      const limited = await fetch(`${server.url}/v1/fleet/star-destroyers`, { headers: { 'X-Forwarded-For': newClient() } });
      assert.equal(limited.status, 503, 'the limits fail closed');
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // ioredis retries meanwhile

      await relay.restore();
      const restored = Date.now();
      await waitUntil(async () => (await ready()).status === 200, 'not ready within 10 s');
      const backAfterMs = Date.now() - restored;
      console.log(`# Redis back: ready again ${backAfterMs} ms after its return`);
      assert.ok(backAfterMs < 5_000, `${backAfterMs} ms`);

      const store = logLines(server).filter((line) => line.context === 'RateLimitStore');
      assert.deepEqual(store.map(({ level }) => level), ['error', 'info'], JSON.stringify(store));
      assert.match(store[0].msg, /unreachable/);
    } finally {
      await server.stop();
      await relay.cut();
    }
  });

  it('counts per instance without Redis', async () => {
    const servers = await startServers(2, { cwd, env: env({}) });
    try {
      assert.deepEqual(await alternate(servers), [401, 401, 401, 401, 401, 401]);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
