import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { createDatabase } from './create-database';
import type { DB } from './database.types';
import { migrateToLatest } from './migrate';
import { PlannerStatistics } from './planner-statistics';
import { openSqlite } from './sqlite';

const EVENTS = 2_000;

/** Refused authentications of many assets: enough rows for statistics to tell the asset index from the action's. */
async function writeEvents(db: Kysely<DB>): Promise<void> {
  const rows = Array.from({ length: EVENTS }, (_, index) => ({
    id: index + 1,
    prev_hash: '',
    hash: '',
    leaf_hash: '',
    leaf_index: index,
    occurred_at: '2026-11-29T00:00:00.000Z',
    action: 'asset.decommission',
    outcome: 'denied' as const,
    asset_id: `BX-${index}`,
    request_id: 'r',
    method: 'DELETE',
    path: `/v1/assets/BX-${index}`,
  }));
  for (let start = 0; start < rows.length; start += 500) {
    await db.insertInto('audit_events').values(rows.slice(start, start + 500)).execute();
  }
}

const analysedIndexes = async (db: Kysely<DB>) =>
  (await sql<{ idx: string }>`select idx from sqlite_stat1 where tbl = 'audit_events' order by idx`.execute(db)).rows.map(({ idx }) => idx);

describe("SQLite's planner statistics", () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-planner-statistics-'));
    path = join(dir, 'registry.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('are gathered when a file whose tables have none is opened', async () => {
    const db = createDatabase({ dialect: 'sqlite', path });
    await migrateToLatest(db);
    await writeEvents(db);
    assert.deepEqual(await analysedIndexes(db).catch(() => []), [], 'none yet: the tables were empty when the file was opened');
    await db.destroy();

    const reopened = openSqlite(path);
    try {
      const indexes = reopened.prepare(`select idx from sqlite_stat1 where tbl = 'audit_events'`).pluck().all();
      assert.ok(indexes.includes('audit_events_asset_idx'), `statistics of ${indexes.join(', ') || 'no index'}`);
    } finally {
      reopened.close();
    }
  });

  it('are gathered for the tables that filled while the service ran', async () => {
    const db = createDatabase({ dialect: 'sqlite', path });
    try {
      await migrateToLatest(db);
      await db.selectFrom('audit_events').select('id').where('asset_id', '=', 'BX-1').execute();
      await writeEvents(db);
      await new PlannerStatistics(db).refresh();
      assert.ok((await analysedIndexes(db)).includes('audit_events_asset_idx'));
    } finally {
      await db.destroy();
    }
  });
});
