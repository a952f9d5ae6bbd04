import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testEngines } from '../test/support/databases';
import { runScript, SCRIPTS, startServer } from '../test/support/processes';

/**
 * What an audited write costs: successful decommissions (the change and its event in one
 * transaction) and refused ones (the event alone), against the compiled server on each engine.
 * Figures, not a pass/fail test.
 */
const ASSETS = 2_000;
const CONCURRENCY = 16;

async function drive(count: number, send: (index: number) => Promise<Response>): Promise<string> {
  const latencies: number[] = [];
  let next = 0;
  let unexpected = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const index = next++;
        const t0 = performance.now();
        const res = await send(index);
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (res.status >= 500) unexpected++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
  return `${Math.round(count / seconds).toString().padStart(5)} req/s  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  5xx ${unexpected}`;
}

async function main(): Promise<void> {
  const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-decommission-bench-'));
  const assetIds = Array.from({ length: ASSETS }, (_, index) => `BEN-${String(index).padStart(4, '0')}`);
  const file = join(cwd, 'assets.json');
  writeFileSync(file, JSON.stringify({ assets: assetIds.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-421' })) }));
  console.log(`${ASSETS} DELETEs of each kind, ${CONCURRENCY} concurrent, compiled server process, Node ${process.version}`);
  try {
    for (const engine of testEngines()) {
      const database = await createTestDatabase(engine, cwd);
      const env = { DATABASE_URL: database.url, SEED_DEMO: 'false' };
      const server = await startServer({ cwd, env });
      try {
        const imported = await runScript(SCRIPTS.import, [file], { cwd, env });
        if (imported.code !== 0) throw new Error(imported.stderr);
        const token = (await runScript(SCRIPTS.token, ['--sub', 'bench', '--clearance', '7'], { cwd, env })).stdout.trim();
        const remove = (assetId: string) =>
          fetch(`${server.url}/v1/assets/${assetId}`, {
            method: 'DELETE',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ reason: 'bench', authorized_by: 'bench' }),
          });
        console.log(`${engine.padEnd(8)} DELETE, 200 (change + event)   ${await drive(ASSETS, (index) => remove(assetIds[index]))}`);
        console.log(`${engine.padEnd(8)} DELETE, 404 (event only)       ${await drive(ASSETS, () => remove('XYZ-9999'))}`);
      } finally {
        await server.stop();
        await database.drop();
      }
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

void main();
