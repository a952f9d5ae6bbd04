import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase, refuseInserts } from './support/databases';
import { decommission, expectErrorBody, getAsset, listFleet } from './support/http';
import { auditSigningKeyFile } from './support/key-files';
import { startTestApp, type TestApp } from './support/test-app';

const METRICS_TOKEN = 'metrics-token-of-the-test-suite';

type Labels = Record<string, string>;

/** The value of the sample `name` whose labels are exactly `labels`; 0 when Prometheus would show none. */
function sample(text: string, name: string, labels: Labels = {}): number {
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) {
      continue;
    }
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
    if (JSON.stringify(Object.entries(found).sort()) === JSON.stringify(Object.entries(labels).sort())) {
      return Number(match[3]);
    }
  }
  return 0;
}

async function scrape(t: TestApp, authorization?: string): Promise<string> {
  const req = t.http().get('/metrics');
  const res = await (authorization ? req.set('Authorization', authorization) : req).expect(200);
  return res.text;
}

describeEachDatabase('GET /metrics', (engine) => {
  let t: TestApp;
  let admiral: string;

  before(async () => {
    t = await startTestApp({ engine });
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  it('answers in the Prometheus text format without a token when METRICS_TOKEN is unset, with process metrics', async () => {
    const res = await t.http().get('/metrics').expect(200);
    assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4; charset=utf-8$/);
    assert.match(res.text, /^# TYPE process_cpu_user_seconds_total counter$/m);
    assert.match(res.text, /^# TYPE http_request_duration_seconds histogram$/m);
  });

  it('counts requests by method, route template and status, whoever answered them (guard, router or handler)', async () => {
    const before = await scrape(t);
    await listFleet(t, '', admiral).expect(200);
    await listFleet(t, 'limit=5', admiral).expect(200);
    await listFleet(t, '').expect(401);
    await getAsset(t, 'TIE-0002', admiral).expect(200);
    await t.http().get('/api/v1/assets/EQP-0001').set('Authorization', admiral).expect(200);
    await t.http().put('/v1/assets/TIE-0002').set('Authorization', admiral).expect(405);
    await t.http().get('/v1/nowhere').expect(404);
    const after = await scrape(t);

    const moved = (method: string, route: string, status: string) =>
      sample(after, 'http_requests_total', { method, route, status }) - sample(before, 'http_requests_total', { method, route, status });
    assert.equal(moved('GET', '/v1/fleet/star-destroyers', '200'), 2);
    assert.equal(moved('GET', '/v1/fleet/star-destroyers', '401'), 1);
    assert.equal(moved('GET', '/v1/assets/:asset_id', '200'), 2, 'both prefixes count under one template');
    assert.equal(moved('PUT', '/v1/assets/:asset_id', '405'), 1);
    assert.equal(moved('GET', 'unmatched', '404'), 1);
    const durations = { method: 'GET', route: '/v1/fleet/star-destroyers', status: '200' };
    assert.equal(sample(after, 'http_request_duration_seconds_count', durations) - sample(before, 'http_request_duration_seconds_count', durations), 2);
    assert.ok(sample(after, 'http_request_duration_seconds_sum', durations) > 0);
    assert.doesNotMatch(after, /TIE-0002|EQP-0001|nowhere|limit=/, 'no raw path or query in a label');
  });

  it('counts decommission outcomes: allowed, and denied by reason', async () => {
    const before = await scrape(t);
    await decommission(t, 'TIE-0001', admiral).expect(200);
    await decommission(t, 'TIE-0001', admiral).expect(404);
    await decommission(t, 'FAC-0001', t.bearer('captain-6', 6)).expect(403);
    const after = await scrape(t);

    const moved = (labels: Labels) => sample(after, 'fleet_registry_decommissions_total', labels) - sample(before, 'fleet_registry_decommissions_total', labels);
    assert.equal(moved({ outcome: 'allowed' }), 1);
    assert.equal(moved({ outcome: 'denied', reason: 'ASSET_NOT_FOUND' }), 1);
    assert.equal(moved({ outcome: 'denied', reason: 'CLEARANCE_INSUFFICIENT' }), 1);
  });

  it('counts an allowed decommission once it is committed: a keyed DELETE whose answer cannot be kept is undone, and not counted', async () => {
    const before = await scrape(t);
    const undo = await refuseInserts(t.db, engine, 'idempotency_keys', 'refuse_idempotency_keys');
    try {
      const res = await decommission(t, 'EQP-0001', admiral).set('Idempotency-Key', 'metrics-undone');
      assert.equal(res.status, 500, JSON.stringify(res.body));
    } finally {
      await undo();
    }
    await getAsset(t, 'EQP-0001', admiral).expect(200).expect((res) => assert.equal(res.body.data.status, 'active'));
    const after = await scrape(t);
    assert.equal(sample(after, 'fleet_registry_decommissions_total', { outcome: 'allowed' }) - sample(before, 'fleet_registry_decommissions_total', { outcome: 'allowed' }), 0);
  });

  it('counts the audit events written, by action and outcome', async () => {
    const before = await scrape(t);
    await decommission(t, 'TIE-0002', admiral).expect(200);
    await decommission(t, 'NOT-0001', admiral).expect(404);
    await listFleet(t, '', 'Bearer not-a-token').expect(401);
    const after = await scrape(t);

    const moved = (labels: Labels) =>
      sample(after, 'fleet_registry_audit_events_written_total', labels) - sample(before, 'fleet_registry_audit_events_written_total', labels);
    assert.equal(moved({ action: 'asset.decommission', outcome: 'allowed' }), 1);
    assert.equal(moved({ action: 'asset.decommission', outcome: 'denied' }), 1);
    assert.equal(moved({ action: 'auth.authenticate', outcome: 'denied' }), 1);
    const written = await t.db.selectFrom('audit_events').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    const counted = [...after.matchAll(/^fleet_registry_audit_events_written_total\{.*\} (\d+)$/gm)].reduce((sum, [, value]) => sum + Number(value), 0);
    assert.equal(counted, Number(written.count), 'one count per event in the trail');
  });

  if (engine === 'postgres') {
    it('shows the PostgreSQL pool: its size, connections in use and idle, and queries waiting', async () => {
      const text = await scrape(t);
      assert.equal(sample(text, 'fleet_registry_db_pool_max'), 20);
      assert.equal(sample(text, 'fleet_registry_db_pool_waiting'), 0);
      assert.ok(sample(text, 'fleet_registry_db_pool_idle') >= 1, 'the connections the requests above used are back in the pool');
      assert.match(text, /^fleet_registry_db_pool_in_use \d+$/m);
    });
  } else {
    it('shows no pool figures on SQLite, which has no pool', async () => {
      assert.doesNotMatch(await scrape(t), /fleet_registry_db_pool/);
    });
  }
});

describeEachDatabase('GET /metrics with METRICS_TOKEN', (engine) => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ engine, env: { METRICS_TOKEN, RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '3' } });
  });
  after(() => t.close());

  const lastEvent = () => t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

  it('answers with the token, and is not counted against the request rate limit', async () => {
    for (let scrapes = 0; scrapes < 5; scrapes++) {
      assert.match(await scrape(t, `Bearer ${METRICS_TOKEN}`), /http_requests_total/);
    }
  });

  it('refuses a request without a token: 401 with the error body, recorded as a denial', async () => {
    const res = await t.http().get('/metrics');
    expectErrorBody(res, 401, 'UNAUTHENTICATED');
    assert.equal(res.body.message, 'The metrics bearer token is required');
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    const event = await lastEvent();
    assert.deepEqual([event.action, event.outcome, event.reason, event.path], ['auth.authenticate', 'denied', 'TOKEN_MISSING', '/metrics']);
  });

  it("refuses another token, an officer's token included: 401, recorded as TOKEN_INVALID", async () => {
    for (const authorization of [`Bearer ${METRICS_TOKEN}x`, `Bearer ${METRICS_TOKEN.slice(1)}`, t.bearer('admiral-9', 9), METRICS_TOKEN]) {
      const res = await t.http().get('/metrics').set('Authorization', authorization);
      expectErrorBody(res, 401, 'UNAUTHENTICATED');
      assert.equal((await lastEvent()).reason, 'TOKEN_INVALID');
    }
  });
});

describe('GET /metrics in production without METRICS_TOKEN', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ env: { NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() } });
  });
  after(() => t.close());

  it('is closed: 401 whatever the token, saying that no METRICS_TOKEN is configured', async () => {
    for (const res of [await t.http().get('/metrics'), await t.http().get('/metrics').set('Authorization', t.bearer('admiral-9', 9))]) {
      expectErrorBody(res, 401, 'UNAUTHENTICATED', 'METRICS_TOKEN');
      assert.match(res.body.message, /no METRICS_TOKEN is configured/);
    }
  });
});
