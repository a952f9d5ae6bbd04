import type { Kysely } from 'kysely';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB, migrateToLatest, type NewAsset, SECTORS, type VesselRow } from '../src/database';

export interface FleetSize {
  vessels: number;
  assets: number;
}

/** Rows per INSERT: at 8 columns, well under the bound-parameter limits of SQLite and PostgreSQL. */
const BATCH = 1_000;

const CLASSES = [
  { class: 'Imperial I-class', length: '1600 meters' },
  { class: 'Imperial II-class', length: '1600 meters' },
  { class: 'Victory I-class', length: '900 meters' },
  { class: 'Executor-class', length: '19000 meters' },
];
const ASSET_TYPES = ['vehicle', 'equipment', 'facility'];

/** Zero-padded to 7 digits, so byte order (the listing's order) is numeric order up to 10 million. */
export function vesselId(index: number): string {
  return `ISD-${String(index + 1).padStart(7, '0')}`;
}

/**
 * Asset ids must match ^[A-Z]{3}-[0-9]{4}$: the letters count the ten-thousands, base 26.
 * bench/wrk-workload.lua spells the same mapping for the requests wrk sends.
 */
export function assetId(index: number): string {
  const block = Math.floor(index / 10_000);
  const letters = [Math.floor(block / 676) % 26, Math.floor(block / 26) % 26, block % 26].map((n) => String.fromCharCode(65 + n));
  return `${letters.join('')}-${String(index % 10_000).padStart(4, '0')}`;
}

/** mulberry32: the same fleet on every run and on both engines, and sectors that do not repeat in a fixed cycle. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function vessel(index: number, random: () => number): VesselRow {
  const design = CLASSES[Math.floor(random() * CLASSES.length)];
  return {
    id: vesselId(index),
    name: `Vessel ${index + 1}`,
    ...design,
    crew: 30_000 + Math.floor(random() * 10_000),
    commander: `Captain ${Math.floor(random() * 5_000)}`,
    sector: SECTORS[Math.floor(random() * SECTORS.length)],
    status: 'operational',
  };
}

function asset(index: number): NewAsset {
  return { asset_id: assetId(index), asset_type: ASSET_TYPES[index % ASSET_TYPES.length], former_pilot: `TK-${index % 1_000}` };
}

/** The service's own connection to a database (`sqlite:<path>` or a PostgreSQL URL), as a server would open it. */
export function openDatabase(url: string): Kysely<DB> {
  return createDatabase(loadAppConfig({ DATABASE_URL: url }).database);
}

/**
 * Migrates the database with the service's migrator (unless another build's migrated it), then writes the fleet through ordinary
 * multi-row INSERTs in one transaction, so that any trigger a migration adds sees every row.
 */
export async function generateFleet(url: string, size: FleetSize, { migrate = true } = {}): Promise<void> {
  const db = openDatabase(url);
  try {
    if (migrate) {
      await migrateToLatest(db);
    }
    const random = seededRandom(9);
    await db.transaction().execute(async (trx) => {
      for (let start = 0; start < size.vessels; start += BATCH) {
        const indexes = Array.from({ length: Math.min(BATCH, size.vessels - start) }, (_, offset) => start + offset);
        await trx.insertInto('vessels').values(indexes.map((index) => vessel(index, random))).execute();
      }
      for (let start = 0; start < size.assets; start += BATCH) {
        const indexes = Array.from({ length: Math.min(BATCH, size.assets - start) }, (_, offset) => start + offset);
        await trx.insertInto('assets').values(indexes.map(asset)).execute();
      }
    });
  } finally {
    await db.destroy();
  }
}
