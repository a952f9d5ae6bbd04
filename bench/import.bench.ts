import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createTestDatabase, testEngines } from '../test/support/databases';
import { SCRIPTS } from '../test/support/processes';

/**
 * `npm run db:import` of many vessels (1,000,000 unless BENCH_IMPORT_VESSELS says otherwise) from each
 * format into each engine, as a user runs it, twice (insert, then upsert of the same ids): time, rate
 * and the process's peak resident memory from /usr/bin/time. Figures, not a pass/fail test.
 */
const VESSELS = Number(process.env.BENCH_IMPORT_VESSELS ?? 1_000_000);
const SECTORS = ['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds'];
const FIELDS = ['id', 'name', 'class', 'length', 'crew', 'commander', 'sector', 'status'];

function vessel(index: number) {
  return {
    id: `ISD-${String(index).padStart(7, '0')}`,
    name: `Vessel ${index}`,
    class: 'Imperial II-class',
    length: '1600 meters',
    crew: 37000 + (index % 1000),
    commander: `Captain ${index}`,
    sector: SECTORS[index % SECTORS.length],
    status: 'operational',
  };
}

async function write(out: WriteStream, text: string): Promise<void> {
  if (!out.write(text)) {
    await once(out, 'drain');
  }
}

/** Writes the file a record at a time, so the benchmark itself never holds them all. */
async function generate(file: string, format: 'json' | 'ndjson' | 'csv'): Promise<void> {
  const out = createWriteStream(file);
  await write(out, format === 'json' ? '{"vessels": [\n' : format === 'csv' ? `${FIELDS.join(',')}\n` : '');
  for (let index = 0; index < VESSELS; index += 1) {
    const record = vessel(index);
    const line =
      format === 'json'
        ? `${index === 0 ? '' : ',\n'}${JSON.stringify(record)}`
        : format === 'ndjson'
          ? `${JSON.stringify({ kind: 'vessel', ...record })}\n`
          : `${Object.values(record).join(',')}\n`;
    await write(out, line);
  }
  await write(out, format === 'json' ? '\n]}\n' : '');
  out.end();
  await once(out, 'finish');
}

/** Runs the import under /usr/bin/time: its exit code, wall time and peak resident memory (MiB). */
function timedImport(args: string[], cwd: string, env: Record<string, string>): Promise<{ ok: boolean; seconds: number; peakMiB: number; output: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/time',
      ['-f', 'peak-kib=%M', process.execPath, SCRIPTS.import, ...args],
      { cwd, env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const peak = /peak-kib=(\d+)/.exec(stderr);
        resolve({ ok: !error, seconds: (performance.now() - started) / 1000, peakMiB: peak ? Number(peak[1]) / 1024 : NaN, output: `${stdout}${stderr}` });
      },
    );
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-import-bench-'));
  console.log(`npm run db:import of ${VESSELS.toLocaleString('en')} vessels per format, insert then upsert of the same ids, Node ${process.version}`);
  try {
    for (const format of ['json', 'ndjson', 'csv'] as const) {
      const file = join(dir, `fleet.${format}`);
      await generate(file, format);
      const megabytes = (statSync(file).size / 1024 / 1024).toFixed(0);
      for (const engine of testEngines()) {
        const database = await createTestDatabase(engine, dir);
        try {
          for (const pass of ['insert', 'upsert']) {
            const result = await timedImport(format === 'csv' ? [file, '--kind', 'vessel'] : [file], dir, { DATABASE_URL: database.url });
            const rate = Math.round(VESSELS / result.seconds).toLocaleString('en');
            console.log(
              `${format.padEnd(6)} (${megabytes} MB) ${engine.padEnd(8)} ${pass.padEnd(6)} ${result.seconds.toFixed(1).padStart(6)} s  ` +
                `${rate.padStart(7)} records/s  peak RSS ${result.peakMiB.toFixed(0)} MiB  ${result.ok ? 'ok' : `FAILED: ${result.output}`}`,
            );
          }
        } finally {
          await database.drop();
          rmSync(join(dir, 'registry.sqlite'), { force: true });
          rmSync(join(dir, 'registry.sqlite-wal'), { force: true });
          rmSync(join(dir, 'registry.sqlite-shm'), { force: true });
        }
      }
      rmSync(file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
