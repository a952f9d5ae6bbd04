import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { countRows } from '../src/database';
import { describeEachDatabase } from './support/databases';
import { decommission, expectErrorBody, listFleet } from './support/http';
import { startServers, type RunningServer } from './support/processes';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A client address of its own for each test, so counters never carry over between tests or runs. */
const newClient = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const FORGED = 'Bearer not.a.token';

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

  it('adds at most 310 events a minute for 3,000 failed authentications from 10 clients (30 denials + 1 flood event each)', async () => {
    const clients = Array.from({ length: 10 }, newClient);
    const before = await eventCount();
    const startedAt = Date.now();
    for (let i = 0; i < 3000; i++) {
      const res = await listFleet(t, '', FORGED).set('X-Forwarded-For', clients[i % clients.length]);
      assert.ok(res.status === 401 || res.status === 429, `status ${res.status}`);
    }

    // On a machine slow enough to need more than a minute, each further window admits as many again.
    const windows = Math.ceil((Date.now() - startedAt) / 60_000);
    const added = (await eventCount()) - before;
    assert.ok(added <= 310 * windows, `${added} events added in ${windows} window(s)`);
    if (windows === 1) {
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
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      assert.equal(await redis.ping(), 'PONG');
    } catch (error) {
      throw new Error(`Redis does not answer at ${REDIS_URL} (see ../shared/services.md to start it)`, { cause: error });
    } finally {
      redis.disconnect();
    }
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

  it('counts per instance without Redis', async () => {
    const servers = await startServers(2, { cwd, env: env({}) });
    try {
      assert.deepEqual(await alternate(servers), [401, 401, 401, 401, 401, 401]);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
