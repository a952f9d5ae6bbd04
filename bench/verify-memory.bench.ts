import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAppConfig } from '../src/config';
import { createDatabase, migrateToLatest } from '../src/database';
import { createTestDatabase, type TestEngine } from '../test/support/databases';
import { SCRIPTS, startServer } from '../test/support/processes';
import { signHs256 } from '../test/support/tokens';
import { fillTrail } from '../test/support/trail';
import { benchArguments } from './lab';

/*
 * `npm run -s build:test && node .test-build/bench/verify-memory.bench.js [--engine postgres]
 * [--concurrency 50] [--events 9300] [--distinct] [--server <a compiled main.js>]`: a server process on a
 * trail of --events events, --concurrency GET /v1/audit/verify sent at once by one clearance-7 officer
 * (with --distinct, each after a refused request that moves the trail head: each of another head), and the
 * server's resident memory (VmRSS, sampled every 10 ms from /proc) before, at its peak, and 5 s after
 * the last answer (and before any verification, and after one alone); with the answers' statuses, and on PostgreSQL the most connections the server held.
 * --server runs another build (the one before a change) against the same kind of trail.
 */

const SECRET = 'bench-secret-that-is-at-least-32-characters';
const SAMPLE_MS = 10;
const SETTLE_MS = 5_000;

const values = benchArguments({
  engine: { type: 'string', default: 'sqlite' },
  concurrency: { type: 'string', default: '50' },
  events: { type: 'string', default: '9300' },
  server: { type: 'string', default: SCRIPTS.server },
  distinct: { type: 'boolean', default: false },
});
const engine = values.engine as TestEngine;
const [concurrency, events] = [Number(values.concurrency), Number(values.events)];

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function migratedTrail(url: string, dir: string, count: number): Promise<void> {
  const db = createDatabase(loadAppConfig({ DATABASE_URL: url, JWT_SECRET: SECRET }, dir).database);
  try {
    await migrateToLatest(db);
    await fillTrail(db, count);
  } finally {
    await db.destroy();
  }
}

/** The connections the server holds (its pool's and its verification threads'), named by the application_name the bench gives it: PostgreSQL only. */
async function serverConnections(url: string): Promise<{ count: () => Promise<{ all: number; threads: number }>; close: () => Promise<void> }> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    count: async () => {
      const { rows } = await client.query<{ all: string; threads: string }>(
        "SELECT count(*) AS all, count(*) FILTER (WHERE application_name LIKE '%:audit-verify') AS threads FROM pg_stat_activity WHERE application_name LIKE 'fleet-registry-verify-bench%'",
      );
      return { all: Number(rows[0].all), threads: Number(rows[0].threads) };
    },
    close: () => client.end(),
  };
}

/** `count` calls of `ask`, each sent once a refused request has moved the trail head on: `count` walks of as many heads. */
async function eachAfterADenial<T>(url: string, count: number, ask: () => Promise<T>): Promise<Promise<T>[]> {
  const asked: Promise<T>[] = [];
  for (let sent = 0; sent < count; sent++) {
    await fetch(`${url}/v1/fleet/star-destroyers`);
    asked.push(ask());
  }
  return asked;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-verify-memory-'));
  const database = await createTestDatabase(engine, dir);
  const url = engine === 'postgres' ? `${database.url}&application_name=fleet-registry-verify-bench` : database.url;
  try {
    await migratedTrail(url, dir, events);
    const server = await startServer({ cwd: dir, script: values.server, env: { DATABASE_URL: url, JWT_SECRET: SECRET, RATE_LIMIT_ENABLED: 'false' } });
    const pid = server.child.pid as number;
    const connections = engine === 'postgres' ? await serverConnections(database.url) : undefined;
    try {
      const token = `Bearer ${signHs256({ sub: 'bench-admiral-7', clearance: 7, exp: Math.floor(Date.now() / 1000) + 3_600 }, { alg: 'HS256', typ: 'JWT' }, SECRET)}`;
      const verify = () => fetch(`${server.url}/v1/audit/verify`, { headers: { Authorization: token } }).then(async (res) => ({ status: res.status, body: await res.text() }));
      const fresh = rssMiB(pid);
      const warm = await verify();
      const idle = rssMiB(pid);
      let [peak, peakConnections, peakThreadConnections, sampling] = [idle, 0, 0, true];
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, rssMiB(pid));
          const held = await connections?.count();
          peakConnections = Math.max(peakConnections, held?.all ?? 0);
          peakThreadConnections = Math.max(peakThreadConnections, held?.threads ?? 0);
          await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
        }
      })();
      const started = performance.now();
      const answers = await Promise.all(values.distinct ? await eachAfterADenial(server.url, concurrency, verify) : Array.from({ length: concurrency }, verify));
      const seconds = (performance.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      sampling = false;
      await sampler;
      const after = rssMiB(pid);
      const counts = new Map<number, number>();
      for (const { status } of answers) {
        counts.set(status, (counts.get(status) ?? 0) + 1);
      }
      const statuses = [...counts].map(([status, count]) => `${count} x ${status}`);
      console.log(
        `${engine}, ${events} events, ${concurrency} verifications at once${values.distinct ? ', each of another head' : ''} (${values.server}): RSS ${fresh.toFixed(0)} MiB before any verification, ${idle.toFixed(0)} MiB after one (${warm.status}), ` +
          `peak ${peak.toFixed(0)} MiB, ${SETTLE_MS / 1000} s after the last answer ${after.toFixed(0)} MiB; answers ${statuses.join(', ')} in ${seconds.toFixed(1)} s` +
          (connections ? `; at most ${peakConnections} connections of the server, ${peakThreadConnections} of them named :audit-verify` : ''),
      );
    } finally {
      await connections?.close();
      await server.stop();
    }
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
