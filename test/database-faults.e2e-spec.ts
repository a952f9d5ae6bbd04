import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY, FIXTURE_RECORDS } from './support/fixtures';
import { type RunningServer, runScript, SCRIPTS, startServer, migrateAndImport } from './support/processes';
import { type Load, type Outcome, startLoad } from './support/load';
import { TcpProxy } from './support/tcp-proxy';
import { waitUntil } from './support/wait';

const STATEMENT_TIMEOUT_MS = 1_000;
const QUERY_TIMEOUT_MS = 1_500;
const CONNECT_TIMEOUT_MS = 1_000;
/**
 * The longest a request may take while the database misbehaves: a wait for a connection, then a
 * query that gets no answer, then one more such query for a request that had passed its first, and slack.
 */
const REQUEST_BOUND_MS = CONNECT_TIMEOUT_MS + 2 * QUERY_TIMEOUT_MS + 1_000;
/** How soon after the network's return readiness and a data route must serve again. */
const RECOVERY_BOUND_MS = 5_000;

const ASSET_IDS = Array.from({ length: 400 }, (_, index) => `FLT-${String(index + 1).padStart(4, '0')}`);

let nextAsset = 0;
const MIXED_REQUESTS: Array<() => [string, RequestInit]> = [
  () => ['/v1/fleet/star-destroyers?limit=5', {}],
  () => [`/v1/assets/${ASSET_IDS[nextAsset++ % ASSET_IDS.length]}`, { method: 'DELETE', body: JSON.stringify(DECOMMISSION_BODY) }],
  () => ['/v1/assets/FLT-0001', {}],
  () => ['/health/ready', {}],
];

/**
 * Reads, readiness checks and decommissions of assets not yet decommissioned, from 8 workers; stopped
 * when the test ends, whether it passed or not.
 */
function startMixedLoad(t: TestContext, server: RunningServer, bearer: string): Load {
  const load = startLoad({ url: server.url, bearer, next: (index) => MIXED_REQUESTS[index % MIXED_REQUESTS.length](), timeoutMs: 3 * REQUEST_BOUND_MS });
  t.after(() => load.stop());
  return load;
}

/** Polls until the route answers 200 and returns how long that took. */
async function serveAgainWithin(server: RunningServer, path: string, bearer: string, boundMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < boundMs) {
    const response = await fetch(`${server.url}${path}`, { headers: { Authorization: bearer } }).catch(() => undefined);
    if (response?.status === 200) {
      return performance.now() - started;
    }
    await sleep(100);
  }
  assert.fail(`${path} did not serve again within ${boundMs} ms`);
}

describe('the compiled server against a PostgreSQL connection that is reset or goes silent', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL: the faults are injected between the server and PostgreSQL' }, () => {
  let cwd: string;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: RunningServer;
  let bearer: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-faults-'));
    database = await createTestDatabase('postgres', cwd);
    const env = { DATABASE_URL: database.url, JWT_SECRET: 'faults-test-secret-of-at-least-32-chars', SEED_DEMO: 'false', RATE_LIMIT_ENABLED: 'false' };
    const assets = ASSET_IDS.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-421' }));
    await migrateAndImport(cwd, env, { vessels: FIXTURE_RECORDS.vessels, assets });
    bearer = `Bearer ${(await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd, env })).stdout.trim()}`;

    const url = new URL(database.url);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    server = await startServer({
      cwd,
      env: {
        ...env,
        DATABASE_URL: url.toString(),
        MIGRATE_ON_START: 'false',
        DATABASE_POOL_SIZE: '4',
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
        DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        // A decision that committed waits this long at most for its event's place in the chain, in place of a further query.
        AUDIT_SEQUENCING_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      },
    });
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await proxy?.cut();
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** The process runs, every request got an answer in time, and every failure was a clean 503. */
  function assertSurvived(outcomes: Outcome[]): void {
    assert.equal(server.child.exitCode, null, `the server exited:\n${server.output()}`);
    const unexpected = outcomes.filter(({ status }) => status !== 200 && status !== 404 && status !== 503);
    assert.deepEqual(unexpected, [], 'only 200, 404 and 503');
    const unclean = outcomes.filter(({ status, errorCode }) => status === 503 && errorCode !== 'SERVICE_UNAVAILABLE');
    assert.deepEqual(unclean, [], 'every 503 is SERVICE_UNAVAILABLE');
    const slowest = Math.max(...outcomes.map(({ ms }) => ms));
    assert.ok(slowest <= REQUEST_BOUND_MS, `the slowest request took ${Math.round(slowest)} ms, over ${REQUEST_BOUND_MS} ms`);
    assert.doesNotMatch(server.output(), /Unhandled|uncaught|INTERNAL_ERROR/i);
  }

  /** An asset is decommissioned exactly when one allowed audit event records it, and each 200 stuck. */
  async function assertNothingHalfWritten(outcomes: Outcome[]): Promise<void> {
    const direct = new Client({ connectionString: database.url });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ asset_id: string; status: string; allowed: string }>(
        `select a.asset_id, a.status, count(e.id) filter (where e.outcome = 'allowed') as allowed
           from assets a left join audit_events e on e.asset_id = a.asset_id and e.action = 'asset.decommission'
          group by a.asset_id, a.status`,
      );
      const torn = rows.filter((row) => (row.status === 'decommissioned') !== (Number(row.allowed) === 1) || Number(row.allowed) > 1);
      assert.deepEqual(torn, [], 'each asset and its audit trail agree');
      const status = new Map(rows.map((row) => [row.asset_id, row.status]));
      for (const { request } of outcomes.filter((outcome) => outcome.request.startsWith('DELETE') && outcome.status === 200)) {
        assert.equal(status.get(request.slice(request.lastIndexOf('/') + 1)), 'decommissioned', request);
      }
    } finally {
      await direct.end();
    }
  }

  it('survives its connections being reset three times under load, answering 503 meanwhile, and serves again at once', async (t) => {
    const load = startMixedLoad(t, server, bearer);
    for (let reset = 0; reset < 3; reset++) {
      await sleep(700);
      // The server reconnects as requests need it; a loaded machine may take longer than the pause.
      await waitUntil(() => proxy.openSockets > 0, () => `no connection to PostgreSQL before reset ${reset + 1}`);
      assert.ok(proxy.reset() > 0, 'the reset dropped live connections');
    }
    await sleep(700);
    const outcomes = await load.stop();

    assertSurvived(outcomes);
    const ready = await serveAgainWithin(server, '/health/ready', bearer, RECOVERY_BOUND_MS);
    await serveAgainWithin(server, '/v1/fleet/star-destroyers', bearer, RECOVERY_BOUND_MS);
    await assertNothingHalfWritten(outcomes);
    t.diagnostic(
      `${outcomes.length} requests, ${outcomes.filter(({ status }) => status === 503).length} answered 503; ` +
        `slowest ${Math.round(Math.max(...outcomes.map(({ ms }) => ms)))} ms; ready again after ${Math.round(ready)} ms`,
    );
  });

  it('turns a database silent for 6 s into 503s within the bound, and serves again within seconds of its return', async (t) => {
    const load = startMixedLoad(t, server, bearer);
    await sleep(500);
    proxy.blackhole();
    await sleep(6_000);
    await proxy.restore();
    const ready = await serveAgainWithin(server, '/health/ready', bearer, RECOVERY_BOUND_MS);
    const data = await serveAgainWithin(server, '/v1/fleet/star-destroyers', bearer, RECOVERY_BOUND_MS);
    await sleep(1_000);
    const outcomes = await load.stop();

    assertSurvived(outcomes);
    assert.ok(outcomes.some(({ status }) => status === 503), 'the silence surfaced as 503s');
    await assertNothingHalfWritten(outcomes);
    t.diagnostic(
      `${outcomes.length} requests, ${outcomes.filter(({ status }) => status === 503).length} answered 503; ` +
        `slowest ${Math.round(Math.max(...outcomes.map(({ ms }) => ms)))} ms; ready again ${Math.round(ready)} ms ` +
        `after the network returned, the fleet listing ${Math.round(ready + data)} ms`,
    );
  });

  it('completes SIGTERM while the database is silent and requests are in flight', async (t) => {
    const load = startMixedLoad(t, server, bearer);
    await sleep(500);
    proxy.blackhole();
    await sleep(500);
    const started = performance.now();
    server.child.kill('SIGTERM');
    const exited = await Promise.race([once(server.child, 'exit').then(() => true), sleep(REQUEST_BOUND_MS + 2_000).then(() => false)]);
    await load.stop();
    assert.ok(exited, `the server was still running ${REQUEST_BOUND_MS + 2_000} ms after SIGTERM:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /Unhandled|uncaught/i);
    t.diagnostic(`exited ${Math.round(performance.now() - started)} ms after SIGTERM`);
  });
});
