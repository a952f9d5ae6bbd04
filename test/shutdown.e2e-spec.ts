import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { startLoad } from './support/load';
import { type RunningServer, startServer } from './support/processes';
import { tokenServiceFor } from './support/tokens';
import { waitUntil } from './support/wait';

/** The drain must end within this; the server then exits 0. */
const GRACE_MS = 3_000;
/** How long a SIGTERMed server still serves; the default (5 s) is for a load balancer to notice. */
const DELAY_MS = 1_000;

describeEachDatabase('SIGTERM while keep-alive clients keep sending', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let server: RunningServer;
  let bearer: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-shutdown-'));
    database = await createTestDatabase(engine, cwd);
    const env = {
      DATABASE_URL: database.url,
      JWT_SECRET: 'shutdown-test-secret-of-at-least-32-chars',
      RATE_LIMIT_ENABLED: 'false',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SHUTDOWN_DELAY_MS: String(DELAY_MS),
    };
    server = await startServer({ cwd, env, outsideEphemeralRange: true });
    // Minted in-process: a token command slowed past its timeout on a loaded machine would leave the load unauthenticated.
    bearer = `Bearer ${tokenServiceFor({ JWT_SECRET: env.JWT_SECRET }).issue('admiral', 9, '1h')}`;
  });
  after(async () => {
    server.child.kill('SIGKILL');
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('answers the requests in flight and those of the delay, closes each connection after its answer, and exits', async () => {
    const load = startLoad({ url: server.url, bearer, next: () => ['/v1/fleet/star-destroyers', {}], timeoutMs: 5_000 });
    // The signal comes once the load is answered, not after a fixed time: on a loaded machine the first
    // requests may not even be read by then, and Node closes such connections as idle.
    const answered = () => load.outcomes().filter(({ status }) => status === 200).length;
    const seen = () => {
      const counts = new Map<string, number>();
      for (const { status, errorCode } of load.outcomes()) {
        const key = errorCode ? `${status} ${errorCode}` : String(status);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return JSON.stringify(Object.fromEntries(counts));
    };
    await waitUntil(() => answered() >= 8, () => `the load got ${answered()} answers in 30 s (${seen()}); the server ${server.child.exitCode === null ? 'runs' : `exited ${server.child.exitCode}`}:\n${server.output().slice(-4_000)}`, 30_000);
    const exit = once(server.child, 'exit') as Promise<[number | null, string | null]>;
    server.child.kill('SIGTERM');
    // Exit code 0 says the drain ended within SHUTDOWN_GRACE_MS, past which the server exits 1 by itself.
    const exited = await Promise.race([exit, sleep(DELAY_MS + GRACE_MS + 2_000).then(() => undefined)]);
    const outcomes = await load.stop();
    assert.deepEqual(exited, [0, null], `exit code and signal, or undefined if still running:\n${server.output()}`);
    const unexpected = outcomes.filter(({ status }) => status !== 200 && status !== 'no answer');
    assert.deepEqual(unexpected, [], `requests answered during the shutdown were served normally; ${seen()} of which these were not:\n${JSON.stringify(unexpected.slice(0, 20))}\n${server.output().slice(-4_000)}`);
  });
});

describeEachDatabase('SIGTERM while a request body stalls', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let server: RunningServer;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-shutdown-'));
    database = await createTestDatabase(engine, cwd);
    server = await startServer({ cwd, env: { DATABASE_URL: database.url, JWT_SECRET: 'shutdown-test-secret-of-at-least-32-chars', SHUTDOWN_GRACE_MS: String(GRACE_MS), SHUTDOWN_DELAY_MS: '0' }, outsideEphemeralRange: true });
  });
  after(async () => {
    server.child.kill('SIGKILL');
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('closes the connection still sending its body and exits 0 within the grace (target)', async () => {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.resume();
    // Not once(socket, 'close'), which rejects on a reset's 'error' before the close.
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await once(socket, 'connect');
    // Headers and the first bytes of a body that never ends: the server holds a request it cannot answer yet.
    socket.write('DELETE /v1/assets/TIE-0001 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"reason":');
    await sleep(300); // for the server to read the headers: nothing it answers says so

    const exit = once(server.child, 'exit') as Promise<[number | null, string | null]>;
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    const exited = await Promise.race([exit, sleep(GRACE_MS + 2_000).then(() => undefined)]);
    const tookMs = Date.now() - signalled;
    console.log(`# target: SIGTERM with a stalled request body: exit ${exited?.[0]} after ${tookMs} ms (grace ${GRACE_MS} ms)`);
    assert.deepEqual(exited, [0, null], `exit code and signal, or undefined if still running:\n${server.output()}`);
    assert.ok(tookMs < GRACE_MS, `${tookMs} ms`);
    await closed;
  });
});

/** How each of `count` listings sent on connections of their own ended: its status, or the socket error's code. */
function sendListings(url: string, bearer: string, count: number): Promise<(number | string)[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<number | string>((resolve) => {
          const request = get(`${url}/v1/fleet/star-destroyers`, { agent: false, headers: { Authorization: bearer } }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
            response.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
          });
          request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
        }),
    ),
  );
}

/** One GET on a connection of its own: the status and the Connection header it was answered with. */
function getOnce(url: string, bearer = ''): Promise<{ status: number; connection?: string; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false, headers: bearer ? { Authorization: bearer } : {} }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
    }).on('error', reject);
  });
}

/** The issue's drain burst: this many listings sent this long before SIGTERM, in each round. */
const BURST = 24;
const BURST_LEAD_MS = 5;
const ROUNDS = 5;

describeEachDatabase('SIGTERM while requests arrive', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let bearer: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-shutdown-'));
    database = await createTestDatabase(engine, cwd);
    env = {
      DATABASE_URL: database.url,
      JWT_SECRET: 'shutdown-test-secret-of-at-least-32-chars',
      RATE_LIMIT_ENABLED: 'false',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SHUTDOWN_DELAY_MS: String(DELAY_MS),
    };
    bearer = `Bearer ${tokenServiceFor({ JWT_SECRET: env.JWT_SECRET }).issue('admiral', 9, '1h')}`;
  });
  after(async () => {
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it(`answers every one of ${BURST} listings sent ${BURST_LEAD_MS} ms before SIGTERM, in each of ${ROUNDS} rounds, and exits 0`, async (t) => {
    const tally = new Map<number | string, number>();
    for (let round = 1; round <= ROUNDS; round++) {
      const server = await startServer({ cwd, env, outsideEphemeralRange: true });
      try {
        const exit = once(server.child, 'exit') as Promise<[number | null, string | null]>;
        const outcomes = sendListings(server.url, bearer, BURST);
        await sleep(BURST_LEAD_MS);
        server.child.kill('SIGTERM');
        for (const outcome of await outcomes) {
          tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
        }
        assert.deepEqual(await exit, [0, null], `round ${round}:\n${server.output().slice(-4_000)}`);
      } finally {
        server.child.kill('SIGKILL');
      }
    }
    const summary = JSON.stringify(Object.fromEntries(tally));
    t.diagnostic(`${ROUNDS * BURST} listings sent ${BURST_LEAD_MS} ms before SIGTERM: ${summary}`);
    assert.deepEqual([...tally.keys()], [200], summary);
  });

  it('answers readiness 503 at once, serves on with Connection: close for SHUTDOWN_DELAY_MS, then stops', async () => {
    // Longer, so that the checks below surely run within it.
    const delayMs = 3_000;
    const server = await startServer({ cwd, env: { ...env, SHUTDOWN_DELAY_MS: String(delayMs) }, outsideEphemeralRange: true });
    try {
      assert.equal((await getOnce(`${server.url}/health/ready`)).status, 200);
      const exit = once(server.child, 'exit') as Promise<[number | null, string | null]>;
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      await waitUntil(() => server.output().includes('SIGTERM received'), () => server.output());
      const ready = await getOnce(`${server.url}/health/ready`);
      assert.equal(ready.status, 503);
      assert.deepEqual(JSON.parse(ready.body), { status: 'error', message: 'The instance is shutting down', error_code: 'SERVICE_UNAVAILABLE' });
      const listing = await getOnce(`${server.url}/v1/fleet/star-destroyers`, bearer);
      assert.equal(listing.status, 200, listing.body);
      assert.equal(listing.connection, 'close');
      assert.ok(Date.now() - signalled < delayMs, 'the checks above ran within the delay; on a machine this slow they prove nothing');
      assert.deepEqual(await exit, [0, null], server.output());
      assert.ok(Date.now() - signalled >= delayMs, 'the server kept serving for SHUTDOWN_DELAY_MS');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
