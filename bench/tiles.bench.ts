import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tilePathOf } from '../src/audit/trail/tiles';
import { loadAppConfig } from '../src/config';
import { createDatabase, migrateToLatest } from '../src/database';
import { createTestDatabase, type TestEngine } from '../test/support/databases';
import { startServer } from '../test/support/processes';
import { fillTrail } from '../test/support/trail';
import { waitUntil } from '../test/support/wait';
import { bearerToken, benchArguments, CLIENT_CPU, machine, machineLine, positiveOption, SECRET, SERVER_CPU } from './lab';
import { runWrk, type WrkResult } from './wrk';

/*
 * `npm run bench:tiles [-- --engine postgres] [--events 70000] [--seconds 10] [--connections 16]`: one
 * server process (on its own CPU, wrk on the other) over a trail of --events events, and full tile reads
 * a second, with their p50 and p99, for the level-0 hash tiles, the entry bundles and, with
 * AUDIT_TILES_PUBLIC=true, level-0 tiles read without a token: every full tile of the trail in turn, so
 * each read is one of the database's, as a CDN in front would leave them. See docs/audit.md, "The log as tiles".
 */

const values = benchArguments({ engine: { type: 'string', default: 'sqlite' }, events: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' } });
const engine = values.engine as TestEngine;
const events = positiveOption(values, 'events', 70_000);
const seconds = positiveOption(values, 'seconds', 10);
const connections = positiveOption(values, 'connections', 16);

/** Every full tile of the trail at this level ('entries' for the bundles), as a path. */
const fullTiles = (level: number | 'entries') =>
  Array.from({ length: Math.floor(events / 256 ** (level === 'entries' ? 1 : level + 1)) }, (_, index) => `/v1/audit/tile/${level}/${tilePathOf({ index, width: 256 })}`);

async function measure(url: string, name: string, paths: string[], authorization?: string): Promise<WrkResult> {
  const run = await runWrk({ url, authorization, seconds, connections, threads: 1, cpu: CLIENT_CPU, workload: ['get', ...paths] });
  const failed = Object.entries(run.statuses).filter(([status]) => status !== '200');
  console.log(
    `  ${name.padEnd(28)} ${run.requestsPerSecond.toFixed(0).padStart(6)} reads/s, p50 ${run.p50Ms.toFixed(2)} ms, p99 ${run.p99Ms.toFixed(2)} ms` +
      (failed.length > 0 || run.socketErrors > 0 ? ` (not 200: ${JSON.stringify(Object.fromEntries(failed))}, socket errors ${run.socketErrors})` : ''),
  );
  return run;
}

async function main(): Promise<void> {
  if (fullTiles(0).length === 0) {
    throw new Error('--events must be at least 256: a full tile');
  }
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-tiles-'));
  const database = await createTestDatabase(engine, dir);
  try {
    const db = createDatabase(loadAppConfig({ DATABASE_URL: database.url, JWT_SECRET: SECRET }, dir).database);
    try {
      await migrateToLatest(db);
      await fillTrail(db, events);
    } finally {
      await db.destroy();
    }
    console.log(`Tile reads, ${engine}, ${events.toLocaleString('en')} events, ${connections} connections, ${seconds} s each; ${machineLine(machine())}`);
    for (const tilesPublic of ['false', 'true']) {
      const env = { DATABASE_URL: database.url, JWT_SECRET: SECRET, SEED_DEMO: 'false', RATE_LIMIT_ENABLED: 'false', AUDIT_TILES_PUBLIC: tilesPublic };
      const server = await startServer({ cwd: dir, cpu: SERVER_CPU, env });
      try {
        const token = bearerToken(7);
        await waitUntil(async () => (await fetch(`${server.url}/v1/audit/checkpoint`, { headers: { authorization: token } })).ok, 'no checkpoint within 10 s');
        if (tilesPublic === 'true') {
          await measure(server.url, 'level-0 tiles, public', fullTiles(0));
        } else {
          await measure(server.url, 'level-0 tiles, clearance 7', fullTiles(0), token);
          await measure(server.url, 'entry bundles, clearance 7', fullTiles('entries'), token);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
