import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { loadDatabaseConfig } from '../src/config';
import { createDatabase } from '../src/database';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { type RunningServer, startServer } from './support/processes';
import { openStream } from './support/sse';
import { TEST_JWT_SECRET } from './support/test-app';
import { waitUntil } from './support/wait';
import { tokenServiceFor } from './support/tokens';

const STREAM = '/v1/audit/events/stream';
const BACKLOG = 5_000;
/** 40 officers holding the 5 streams each that an instance allows. */
const OFFICERS = 40;
const STREAMS_EACH = 5;
/** What src/audit/api/audit-stream.ts reads per replay step. */
const REPLAY_BATCH = 100;
const REPLAYED = 'fleet_registry_audit_stream_replayed_events_total';

describeEachDatabase('replaying audit streams whose clients never read', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let server: RunningServer;
  const tokens = tokenServiceFor({ JWT_SECRET: TEST_JWT_SECRET });
  const bearer = (officer: string, clearance: number) => `Bearer ${tokens.issue(officer, clearance, '1h')}`;
  const sockets: Socket[] = [];

  /** The events the instance has read to replay them, as /metrics says. */
  const replayed = async () => {
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    return Number(new RegExp(`^${REPLAYED} (\\d+)$`, 'm').exec(metrics)?.[1] ?? NaN);
  };
  /** An unrelated officer's first page of the trail. */
  const listing = async (authorization: string) => (await fetch(`${server.url}/v1/audit/events?limit=20`, { headers: { Authorization: authorization } })).status;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-replay-'));
    database = await createTestDatabase(engine, cwd);
    server = await startServer({ cwd, env: { DATABASE_URL: database.url, JWT_SECRET: TEST_JWT_SECRET, SEED_DEMO: 'false', RATE_LIMIT_ENABLED: 'false' } });
    const db = createDatabase(loadDatabaseConfig({ DATABASE_URL: database.url }, cwd).database);
    const first = ((await db.selectFrom('audit_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0) + 1;
    const backlog = Array.from({ length: BACKLOG }, (_, index) => ({
      id: first + index,
      occurred_at: '2030-01-01T00:00:00.000Z',
      action: 'auth.authenticate',
      outcome: 'denied' as const,
      reason: 'TOKEN_MISSING',
      request_id: `backlog-${index}`,
      ip: '127.0.0.1',
      method: 'GET',
      path: `/${'x'.repeat(500)}`,
      prev_hash: '0'.repeat(64),
      hash: '1'.repeat(64),
      leaf_hash: 'bGVhZg==',
      leaf_index: first + index,
    }));
    for (let from = 0; from < BACKLOG; from += 500) {
      await db.insertInto('audit_events').values(backlog.slice(from, from + 500)).execute();
    }
    await db.destroy();
  });
  after(async () => {
    sockets.forEach((socket) => socket.destroy());
    await server?.stop();
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('replays one step at a time across the instance: an unrelated request waits for a few steps, not for every stream', async () => {
    for (let officer = 0; officer < OFFICERS; officer++) {
      const authorization = bearer(`replayer-${officer}`, 7);
      for (let i = 0; i < STREAMS_EACH; i++) {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        socket.pause();
        socket.on('error', () => undefined);
        socket.write(`GET ${STREAM}?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n\r\n`);
        sockets.push(socket);
      }
    }
    await Promise.all(sockets.filter((socket) => socket.connecting).map((socket) => once(socket, 'connect')));
    await waitUntil(async () => (await replayed()) > 0, 'the instance counts the events it reads for replays');
    const authorization = bearer('unrelated-7', 7);
    const before = await replayed();
    const started = performance.now();
    assert.equal(await listing(authorization), 200);
    const elapsed = performance.now() - started;
    const meanwhile = (await replayed()) - before;
    console.log(`# ${engine}: an unrelated listing took ${elapsed.toFixed(0)} ms while ${sockets.length} streams replayed; ${meanwhile} events read for them meanwhile`);
    // Steps go on while the listing is under way, one per turn of the event loop; a listing that waited for
    // every stream to take a step would see 200 steps go by, and one that waited for the replays, thousands.
    assert.ok(meanwhile < sockets.length * REPLAY_BATCH, `${meanwhile} events replayed while one unrelated request was answered`);
  });

  it('replays the whole backlog, in order, to a client that reads', async () => {
    sockets.splice(0).forEach((socket) => socket.destroy());
    const reader = await openStream(`${server.url}${STREAM}?after=0`, { Authorization: bearer('patient-reader', 7) });
    const frames = await reader.take(BACKLOG, 60_000, (frame) => frame.event === 'audit' && JSON.parse(frame.data ?? '{}').request_id?.startsWith('backlog-'));
    reader.close();
    assert.deepEqual(
      frames.map((frame) => JSON.parse(frame.data ?? '{}').request_id),
      Array.from({ length: BACKLOG }, (_, index) => `backlog-${index}`),
    );
  });
});
