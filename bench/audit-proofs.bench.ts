import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { TrailRepository } from '../src/audit';
import { AuditTree } from '../src/audit/trail/audit-tree';
import { appendLeaves, consistencyPlan, type Frontier, inclusionPlan, leafHash } from '../src/audit/trail/merkle';
import type { AuditConfig, DatabaseConfig, DatabaseLocation } from '../src/config';
import { createDatabase, type DB, migrateToLatest } from '../src/database';
import { createTestDatabase } from '../test/support/databases';
import { benchArguments } from './lab';

/*
 * `npm run bench:audit-proofs`: the audit tree at 1M events (100,000 with --quick) on SQLite and, with
 * TEST_DATABASE_URL, PostgreSQL: inclusion and consistency proofs answered by the service's AuditTree
 * (its reads included, HTTP aside), their p50 and p99, and how many stored nodes a proof reads at each
 * size, which grows with log n. See docs/performance.md, "Audit proofs".
 */

const TARGET_P99_MS = 20;
const SAMPLES = 2_000;
const LOAD_BATCH = 1_000;

async function load(db: Kysely<DB>, events: number): Promise<void> {
  let tree: Frontier = { size: 0, hashes: [] };
  for (let start = 0; start < events; start += LOAD_BATCH) {
    const count = Math.min(LOAD_BATCH, events - start);
    const rows = Array.from({ length: count }, (_, offset) => {
      const index = start + offset;
      return {
        id: index + 1,
        leaf_index: index,
        occurred_at: new Date(Date.UTC(2026, 0, 1) + index).toISOString(),
        action: 'auth.authenticate',
        outcome: 'denied' as const,
        reason: 'TOKEN_MISSING',
        actor: null,
        actor_clearance: null,
        asset_id: null,
        request_id: `bench-${index}`,
        ip: '127.0.0.1',
        method: 'GET',
        path: '/v1/fleet/star-destroyers',
        details: null,
        prev_hash: '0'.repeat(64),
        hash: '0'.repeat(64),
        leaf_hash: leafHash(`bench-${index}`),
      };
    });
    const grown = appendLeaves(tree, rows.map((row) => row.leaf_hash));
    tree = grown.frontier;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('audit_events').values(rows).execute();
      if (grown.nodes.length > 0) {
        await trx.insertInto('audit_tree_nodes').values(grown.nodes.map(({ level, index, hash }) => ({ level, node_index: index, hash }))).execute();
      }
    });
  }
  await db.updateTable('audit_chain_head').set({ event_count: events, last_event_id: events, frontier: tree.hashes.join(',') }).execute();
}

async function timed(samples: number, run: (sample: number) => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const started = performance.now();
    await run(sample);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

async function measure(label: string, location: DatabaseLocation, events: number): Promise<boolean> {
  const db = createDatabase(location);
  try {
    await migrateToLatest(db);
    const loading = performance.now();
    await load(db, events);
    console.log(`${label}: ${events.toLocaleString('en')} events loaded in ${((performance.now() - loading) / 1000).toFixed(1)} s`);
    const config = { signingKey: generateKeyPairSync('ed25519').privateKey, logOrigin: 'bench/audit', checkpointIntervalMs: 1_000 } as AuditConfig;
    const tree = new AuditTree(new TrailRepository(db), config, { database: location } as DatabaseConfig);
    const random = (below: number) => 1 + Math.floor(Math.random() * below);
    const inclusion = await timed(SAMPLES, () => tree.inclusionProof(random(events), events));
    const consistency = await timed(SAMPLES, () => tree.consistencyProof(random(events - 1), events));
    const line = (name: string, { p50, p99 }: { p50: number; p99: number }) =>
      `  ${name.padEnd(18)} p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (target p99 < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'met' : 'MISSED'})`;
    console.log(line('inclusion proof', inclusion));
    console.log(line('consistency proof', consistency));
    return inclusion.p99 < TARGET_P99_MS && consistency.p99 < TARGET_P99_MS;
  } finally {
    await db.destroy();
  }
}

/** The most stored nodes one proof reads at each size: the worst leaf and the worst older size. */
function reads(size: number): string {
  let inclusion = 0;
  let consistency = 0;
  for (let probe = 0; probe < 64; probe++) {
    const at = Math.max(0, Math.floor((size * probe) / 64) - 1 + (probe % 2));
    inclusion = Math.max(inclusion, inclusionPlan(Math.min(at, size - 1), size).nodes.length);
    consistency = Math.max(consistency, consistencyPlan(Math.max(1, Math.min(at, size)), size).nodes.length);
  }
  return `${size.toLocaleString('en').padStart(10)} events: inclusion ${inclusion}, consistency ${consistency} nodes read (log2 n = ${Math.log2(size).toFixed(1)})`;
}

async function main(): Promise<void> {
  const values = benchArguments({ quick: { type: 'boolean' }, events: { type: 'string' } });
  const events = Number(values.events ?? (values.quick ? 100_000 : 1_000_000));
  console.log('Stored nodes a proof reads, by tree size:');
  for (const size of [1_000, 10_000, 100_000, 1_000_000, 10_000_000]) {
    console.log(`  ${reads(size)}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-proofs-'));
  let met = true;
  try {
    met = (await measure('SQLite', { dialect: 'sqlite', path: join(dir, 'proofs.sqlite') }, events)) && met;
    if (process.env.TEST_DATABASE_URL) {
      const database = await createTestDatabase('postgres', dir);
      try {
        const url = database.url;
        met = (await measure('PostgreSQL', { dialect: 'postgres', url, poolSize: 4, timeouts: { statementMs: 30_000, queryMs: 31_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 } }, events)) && met;
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = met ? 0 : 1;
}

void main();
