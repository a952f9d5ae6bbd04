import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript, SCRIPTS, startServer } from '../test/support/processes';

/**
 * The compiled server in its own process on the demo data, this process as the client.
 * Loopback only, a fixed number of requests: figures for the README, not a pass/fail test.
 */
const REQUESTS = 4_000;
const WARM_UP = 500;
const CONCURRENCY = 16;

async function drive(count: number, send: () => Promise<Response>): Promise<{ latencies: number[]; failures: number }> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) {
        const t0 = performance.now();
        const res = await send();
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status >= 500) failures++;
      }
    }),
  );
  return { latencies, failures };
}

async function run(label: string, send: () => Promise<Response>): Promise<void> {
  await drive(WARM_UP, send);
  const started = performance.now();
  const { latencies, failures } = await drive(REQUESTS, send);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(2);
  console.log(
    `${label.padEnd(46)} ${Math.round(REQUESTS / seconds).toString().padStart(6)} req/s  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  5xx ${failures}`,
  );
}

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-bench-'));
  const server = await startServer({ cwd });
  const base = server.url;
  const officer = `Bearer ${(await runScript(SCRIPTS.token, ['--sub', 'bench', '--clearance', '7'], { cwd })).stdout.trim()}`;
  console.log(`${REQUESTS} requests per route after ${WARM_UP} to warm up, ${CONCURRENCY} concurrent, server process on SQLite (demo data), Node ${process.version}`);
  try {
    await run('GET /v1/fleet/star-destroyers (10 vessels)', () => fetch(`${base}/v1/fleet/star-destroyers`, { headers: { Authorization: officer } }));
    await run('GET /v1/fleet/star-destroyers?sector&limit=100', () =>
      fetch(`${base}/v1/fleet/star-destroyers?sector=Outer%20Rim&limit=100`, { headers: { Authorization: officer } }),
    );
    await run('DELETE /v1/assets/XYZ-9999 (404, audited)', () =>
      fetch(`${base}/v1/assets/XYZ-9999`, {
        method: 'DELETE',
        headers: { Authorization: officer, 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: 'bench', authorized_by: 'bench' }),
      }),
    );
    await run('GET without a token (401, audited)', () => fetch(`${base}/v1/fleet/star-destroyers`));
  } finally {
    await server.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
}

void main();
