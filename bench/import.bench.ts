import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, testEngines } from '../test/support/databases';
import { runScript, SCRIPTS } from '../test/support/processes';

/** `npm run db:import` of 100,000 vessels into each engine, as a user runs it: figures, not a pass/fail test. */
const VESSELS = 100_000;
const SECTORS = ['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds'];

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-import-bench-'));
  const file = join(dir, 'fleet.json');
  const vessels = Array.from({ length: VESSELS }, (_, index) => ({
    id: `ISD-${String(index).padStart(6, '0')}`,
    name: `Vessel ${index}`,
    class: 'Imperial II-class',
    length: '1600 meters',
    crew: 37000 + (index % 1000),
    commander: `Captain ${index}`,
    sector: SECTORS[index % SECTORS.length],
    status: 'operational',
  }));
  writeFileSync(file, JSON.stringify({ vessels }));
  console.log(`npm run db:import of ${VESSELS.toLocaleString('en')} vessels, twice (insert, then upsert of the same ids), Node ${process.version}`);
  try {
    for (const engine of testEngines()) {
      const database = await createTestDatabase(engine, dir);
      try {
        for (const pass of ['insert', 'upsert']) {
          const started = performance.now();
          const result = await runScript(SCRIPTS.import, [file], { cwd: dir, env: { DATABASE_URL: database.url } });
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          console.log(`${engine.padEnd(8)} ${pass.padEnd(6)} ${seconds.padStart(5)} s  ${result.code === 0 ? 'ok' : `FAILED: ${result.stderr}`}`);
        }
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
