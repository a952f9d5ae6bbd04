import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShutdownState } from '../src/bootstrap';
import { freePort, type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { TcpProxy } from './support/tcp-proxy';
import { startTestApp } from './support/test-app';
import { createTestDatabase } from './support/databases';
import { waitUntil } from './support/wait';

const SECRET = 'lifecycle-test-secret-of-at-least-32-chars';

/** A request whose headers are sent but whose body is not yet complete: in flight until finish() sends the rest. */
async function requestInFlight(url: string, method: string, path: string, body: string, authorization = '') {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  // A connection the server cuts may end in a reset: no answer, as the test then checks. Not once(socket,
  // 'close'), which rejects on the reset's 'error' before the close.
  socket.on('error', () => undefined);
  const closed = new Promise((resolve) => socket.once('close', resolve));
  const headers = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
  socket.write(`${[...headers, ...(authorization ? [`Authorization: ${authorization}`] : [])].join('\r\n')}\r\n\r\n${body.slice(0, 1)}`);
  return {
    /** Sends the rest of the body and resolves with the status and body once the server closes the connection. */
    finish: async () => {
      socket.write(body.slice(1));
      await closed;
      const [head, text] = answer.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), text };
    },
    abandon: () => socket.destroy(),
  };
}

const waitFor = (output: () => string, text: string) => waitUntil(() => output().includes(text), () => `"${text}" never appeared in:\n${output()}`);

const exitOf = (server: RunningServer) => once(server.child, 'exit') as Promise<[number | null, string | null]>;

describe('SIGTERM and SIGINT drain the server', () => {
  let cwd: string;
  let env: Record<string, string>;
  let bearer: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-lifecycle-'));
    // No delay after SIGTERM: the drain itself is under test here (test/shutdown.e2e-spec.ts covers the delay).
    env = { DATABASE_URL: 'sqlite:registry.sqlite', JWT_SECRET: SECRET, RATE_LIMIT_ENABLED: 'false', SHUTDOWN_DELAY_MS: '0' };
    bearer = `Bearer ${(await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd, env })).stdout.trim()}`;
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  it('on SIGTERM closes the connections still sending their request, closes the database, logs each step and exits 0', async () => {
    const server = await startServer({ cwd, env });
    const decommission = await requestInFlight(server.url, 'DELETE', '/v1/assets/TIE-0001', JSON.stringify({ reason: 'Drained', authorized_by: 'Grand Moff Tarkin' }), bearer);
    // Until the server has read their headers, Node counts the connections idle and closes them on shutdown;
    // past STALLED_BODY_MS (1 s) after them, a body still arriving counts as stalled.
    await sleep(1_500);
    const exit = exitOf(server);
    server.child.kill('SIGTERM');
    await waitFor(server.output, 'SIGTERM received');

    const unanswered = await decommission.finish();
    assert.equal(unanswered.text, undefined, 'a request whose body was still arriving gets no answer, and nothing is done');

    assert.deepEqual(await exit, [0, null]);
    const steps = ['SIGTERM received', 'body is still arriving', 'idle keep-alive connections and requests still being received closed', 'HTTP server closed', 'Database closed', 'exiting with code 0'];
    const positions = steps.map((step) => server.output().indexOf(step));
    assert.ok(positions.every((position) => position >= 0), `every step logged:\n${server.output()}`);
    assert.ok(positions.slice(2).every((position, index) => position > (positions.slice(2)[index - 1] ?? positions[0])), `steps logged in order:\n${server.output()}`);
  });

  it('on SIGTERM answers a request whose body completes soon after the drain began', async () => {
    const server = await startServer({ cwd, env });
    const decommission = await requestInFlight(server.url, 'DELETE', '/v1/assets/TIE-0002', JSON.stringify({ reason: 'Drained', authorized_by: 'Grand Moff Tarkin' }), bearer);
    await sleep(100); // for the server to read the headers
    const exit = exitOf(server);
    server.child.kill('SIGTERM');
    await waitFor(server.output, 'No new connections');

    const answered = await decommission.finish();
    assert.equal(answered.status, 200, `the body came in time, so it is answered:\n${server.output()}`);
    assert.deepEqual(await exit, [0, null]);
    assert.doesNotMatch(server.output(), /body is still arriving/);
  });

  it('answers readiness 503 once a shutdown has begun', async () => {
    const t = await startTestApp();
    try {
      await t.http().get('/health/ready').expect(200);
      t.app.get(ShutdownState).begin();
      const res = await t.http().get('/health/ready').expect(503);
      assert.deepEqual(res.body, { status: 'error', message: 'The instance is shutting down', error_code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await t.close();
    }
  });

  it('drains the same way on SIGINT, without the delay a SIGTERM gives a load balancer', async () => {
    const server = await startServer({ cwd, env: { ...env, SHUTDOWN_DELAY_MS: '600000' } });
    const exit = exitOf(server);
    server.child.kill('SIGINT');
    assert.deepEqual(await exit, [0, null]);
    assert.match(server.output(), /SIGINT received/);
  });

  it('exits 1 with a log line when a request is still in flight after SHUTDOWN_GRACE_MS', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL: a silent PostgreSQL holds the request' }, async () => {
    // A handler waiting on a silent PostgreSQL for its 6 s query timeout outlasts a grace of 500 ms.
    const database = await createTestDatabase('postgres', cwd);
    const url = new URL(database.url);
    const relay = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    const server = await startServer({ cwd, env: { ...env, DATABASE_URL: url.toString(), SHUTDOWN_GRACE_MS: '500' } });
    try {
      relay.blackhole();
      const stuck = fetch(`${server.url}/v1/fleet/star-destroyers`, { headers: { Authorization: bearer } }).catch(() => undefined);
      await sleep(300);
      const started = Date.now();
      const exit = exitOf(server);
      server.child.kill('SIGTERM');
      assert.deepEqual(await exit, [1, null]);
      await stuck;
      assert.ok(Date.now() - started < 5_000);
      assert.match(server.output(), /unfinished after SHUTDOWN_GRACE_MS=500: exiting with code 1/);
    } finally {
      await relay.cut();
      await database.drop();
    }
  });
});

describe('start-up', () => {
  let cwd: string;

  before(() => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-startup-'));
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  const start = async (env: Record<string, string>, dir = cwd) =>
    runScript(SCRIPTS.server, [], { cwd: dir, env: { JWT_SECRET: SECRET, PORT: String(await freePort()), ...env } });

  /** One line on stderr, no stack, exit code 1, and never a claim to have started. */
  function assertOneLineFailure(result: { code: number | null; stdout: string; stderr: string }, expected: RegExp) {
    assert.equal(result.code, 1);
    assert.match(result.stderr, expected);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.doesNotMatch(result.stderr + result.stdout, /\n\s+at |successfully started|listening on/);
  }

  it('says the real address it listens on, on the HOST given', async () => {
    const server = await startServer({ cwd, env: { JWT_SECRET: SECRET, DATABASE_URL: 'sqlite::memory:', HOST: '127.0.0.1' } });
    try {
      assert.match(server.output(), new RegExp(`listening on ${server.url.replace(/[.]/g, '\\.')} \\(Swagger UI`));
    } finally {
      await server.stop();
    }
  });

  it('refuses a taken port in one line before anything else starts', async () => {
    const server = await startServer({ cwd, env: { JWT_SECRET: SECRET, DATABASE_URL: 'sqlite::memory:' } });
    try {
      const { port } = new URL(server.url);
      const result = await start({ DATABASE_URL: 'sqlite::memory:', PORT: port });
      assertOneLineFailure(result, new RegExp(`Cannot listen on 0\\.0\\.0\\.0:${port}: another process holds the port\\. Free the port`));
    } finally {
      await server.stop();
    }
  });

  it('refuses an unmigrated database when MIGRATE_ON_START=false, naming npm run db:migrate, and creates no empty file for a SQLite one that is not there', async () => {
    assertOneLineFailure(await start({ DATABASE_URL: 'sqlite:unmigrated.sqlite', MIGRATE_ON_START: 'false' }), /lacks migrations 001-initial, 002-audit-chain, 003-vessel-counts, 004-audit-pending, 005-audit-tree, 006-audit-query-indexes, 007-decommission-requests, 008-audit-tree-without-pairs, 009-decommission-request-kinds, 010-decommission-policy, 011-imported-decommissions, 012-delivery-feeds, 013-idempotency-keys, 014-audit-cosignatures, 015-decommission-request-assets, 016-idempotency-keys-answers-only, 017-audit-asset-ids-bytewise: run npm run db:migrate/);
    assert.ok(!existsSync(join(cwd, 'unmigrated.sqlite')));
  });

  it('names a data directory it cannot create or write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-no-data-'));
    writeFileSync(join(dir, 'data'), 'a file where the directory should be');
    try {
      assertOneLineFailure(await start({}, dir), /Cannot create or write .*data .*fix its permissions/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** A fresh working directory, and what a start with `env` and no token key left in it. */
  async function filesLeftBy(env: Record<string, string>, expected: RegExp): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-failed-start-'));
    try {
      // No token key, so a start that went further would write the generated secret too.
      assertOneLineFailure(await start({ ...env, JWT_SECRET: '' }, dir), expected);
      return readdirSync(dir, { recursive: true, encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('names an unreachable database, and writes nothing: no data directory, secret or signing key', async () => {
    const left = await filesLeftBy(
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', DATABASE_CONNECT_TIMEOUT_MS: '1000' },
      /Cannot reach the database .*check DATABASE_URL and that the database server is up/,
    );
    assert.deepEqual(left, []);
  });

  it('refuses a SQLite path whose directory is missing, in one line naming it and the fix, and writes nothing', async () => {
    const left = await filesLeftBy(
      { DATABASE_URL: 'sqlite:nonexistent/dir/x.sqlite' },
      /^Invalid configuration: DATABASE_URL names .*\/nonexistent\/dir\/x\.sqlite, whose directory .*\/nonexistent\/dir does not exist: check the path, or create the directory first$/m,
    );
    assert.deepEqual(left, []);
  });

  it('adds the stack when LOG_LEVEL=debug', async () => {
    const result = await start({ DATABASE_URL: 'sqlite:unmigrated.sqlite', MIGRATE_ON_START: 'false', LOG_LEVEL: 'debug' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /lacks migrations[^\n]*\n[\s\S]*\n\s+at /);
  });
});
