import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { AssetsRepository } from '../src/assets/assets.repository';
import { AuditWriteRepository } from '../src/audit/write/audit-write.repository';
import { type DB, migrateToLatest, selectPage } from '../src/database';
import { openSqlite } from '../src/database';
import { StatementCachingDatabase } from '../src/database/statement-cache';

/**
 * Kysely's SqliteDialect as it comes (a prepare per query) against the same dialect over the statement
 * cache, each on its own file opened as the service opens it (WAL, synchronous=FULL), in alternating
 * rounds so that a load on the machine hits both alike. Figures, not a pass/fail test.
 */
const ROUNDS = 6;
const LISTINGS = 4_000;
const DECOMMISSIONS = 500;
const VESSELS = 1_000;
const SECTORS = ['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds'] as const;

interface Subject {
  name: string;
  db: Kysely<DB>;
  listing: number[];
  decommission: number[];
  decommissioned: number;
}

async function open(name: string, dir: string, cached: boolean): Promise<Subject> {
  const sqlite = openSqlite(join(dir, `${name}.sqlite`));
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cached ? new StatementCachingDatabase(sqlite) : sqlite }) });
  await migrateToLatest(db);
  await db
    .insertInto('vessels')
    .values(
      Array.from({ length: VESSELS }, (_, index) => ({
        id: `ISD-${String(index).padStart(4, '0')}`,
        name: `Vessel ${index}`,
        class: 'Imperial II-class',
        length: '1600 meters',
        crew: 37_000,
        commander: `Captain ${index}`,
        sector: SECTORS[index % SECTORS.length],
        status: 'operational',
      })),
    )
    .execute();
  const assets = Array.from({ length: ROUNDS * DECOMMISSIONS }, (_, index) => ({
    asset_id: `BEN-${String(index).padStart(4, '0')}`,
    asset_type: 'vehicle',
    former_pilot: 'TK-421',
  }));
  for (let start = 0; start < assets.length; start += 500) {
    await db.insertInto('assets').values(assets.slice(start, start + 500)).execute();
  }
  return { name, db, listing: [], decommission: [], decommissioned: 0 };
}

/** Microseconds per operation over `count` sequential operations. */
async function timed(count: number, operation: (index: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    await operation(index);
  }
  return ((performance.now() - started) * 1000) / count;
}

async function round(subject: Subject): Promise<void> {
  const { db } = subject;
  const vessels = db.selectFrom('vessels').where('sector', '=', 'Outer Rim');
  subject.listing.push(
    await timed(LISTINGS, () => selectPage(vessels, (query) => query.selectAll().orderBy('id'), { limit: 10, offset: 20 })),
  );
  const assets = new AssetsRepository(db);
  const audit = new AuditWriteRepository(db);
  const origin = { action: 'asset.decommission', outcome: 'allowed', reason: null, actor: 'bench', actor_clearance: 7, request_id: 'r', ip: '127.0.0.1', method: 'DELETE', path: '/v1/assets/x', details: null } as const;
  subject.decommission.push(
    await timed(DECOMMISSIONS, () =>
      db.transaction().execute(async (trx) => {
        const assetId = `BEN-${String(subject.decommissioned++).padStart(4, '0')}`;
        if (!(await assets.decommission(trx, assetId, { decommission_reason: 'bench', authorized_by: 'bench' }))) throw new Error(`${assetId} not decommissioned`);
        await audit.appendToChain(trx, { ...origin, asset_id: assetId });
      }),
    ),
  );
}

const best = (values: number[]) => Math.min(...values).toFixed(1).padStart(7);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(1).padStart(7);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-statement-cache-bench-'));
  const subjects = [await open('prepare-each-time', dir, false), await open('statement-cache', dir, true)];
  try {
    for (let index = 0; index < ROUNDS; index++) {
      for (const subject of index % 2 === 0 ? subjects : [...subjects].reverse()) {
        await round(subject);
      }
    }
    console.log(`${ROUNDS} alternating rounds, Node ${process.version}; µs per operation, best / median of the rounds`);
    console.log(`${''.padEnd(18)} ${'listing (page + count)'.padEnd(24)} decommission transaction (update + audit append, synchronous=FULL)`);
    for (const subject of subjects) {
      console.log(`${subject.name.padEnd(18)} ${best(subject.listing)} / ${median(subject.listing)}        ${best(subject.decommission)} / ${median(subject.decommission)}`);
    }
  } finally {
    for (const subject of subjects) await subject.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
