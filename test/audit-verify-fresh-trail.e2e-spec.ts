import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { runScript, SCRIPTS } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';
import { extendTrail } from './support/trail';

const DECOMMISSIONED = 10_000;
const DENIALS = 30_000;
/** Decommissioned in their rows, with no event: what audit:verify must name, and all it must name. */
const UNRECORDED = ['BX-0000007', 'BX-0004321'];
const RECORDED_AT = '2026-11-29T00:00:00.000Z';
const assetId = (index: number) => `BX-${String(index).padStart(7, '0')}`;

/**
 * audit:verify right after a busy spell, as `npm run bench:audit` runs it: the rows are too new for
 * PostgreSQL's statistics, and its cross-check of assets against their events must still answer a page
 * at a time, within the statement timeout (a bench run's 45,000 decommissions took minutes a page and
 * ended in "Cannot reach the database ... it did not answer in time").
 */
describeEachDatabase('audit:verify over a trail written moments ago', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let t: TestApp;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-verify-fresh-'));
    database = await createTestDatabase(engine, dir);
    t = await startTestApp({ engine, database, records: null });
    const rows = Array.from({ length: (DECOMMISSIONED * 3) / 2 }, (_, index) => {
      const decommissioned = index < DECOMMISSIONED;
      return {
        asset_id: assetId(index),
        asset_type: 'vehicle' as const,
        former_pilot: 'Pilot',
        status: decommissioned ? ('decommissioned' as const) : ('active' as const),
        decommission_reason: decommissioned ? 'retired' : null,
        decommissioned_at: decommissioned ? RECORDED_AT : null,
        authorized_by: decommissioned ? 'admiral-8' : null,
      };
    });
    for (let start = 0; start < rows.length; start += 1_000) {
      await t.db.insertInto('assets').values(rows.slice(start, start + 1_000)).execute();
    }
    const recorded = rows.slice(0, DECOMMISSIONED).filter(({ asset_id }) => !UNRECORDED.includes(asset_id));
    const common = { actor: 'admiral-7', actor_clearance: 7, request_id: 'r', ip: '127.0.0.1', method: 'DELETE', details: null };
    await extendTrail(t.db, recorded.length, {
      recordedAt: RECORDED_AT,
      eventAt: (index) => ({ ...common, action: 'asset.decommission', outcome: 'allowed', reason: null, asset_id: recorded[index].asset_id, path: `/v1/assets/${recorded[index].asset_id}` }),
    });
    // Refusals of the assets still active, a few apiece, as a flood of clearance-6 DELETEs leaves them.
    await extendTrail(t.db, DENIALS, {
      recordedAt: RECORDED_AT,
      eventAt: (index) => {
        const target = assetId(DECOMMISSIONED + (index % (DECOMMISSIONED / 2)));
        return { ...common, actor_clearance: 6, action: 'asset.decommission', outcome: 'denied', reason: 'INSUFFICIENT_CLEARANCE', asset_id: target, path: `/v1/assets/${target}` };
      },
    });
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the two decommissioned assets without an event, within a 1 s statement timeout', async () => {
    const { code, stdout, stderr } = await runScript(SCRIPTS.auditVerify, [], {
      cwd: dir,
      env: { DATABASE_URL: database.url, DATABASE_STATEMENT_TIMEOUT_MS: '1000' },
      timeout: 120_000,
    });
    assert.equal(stdout, '');
    const lines = stderr.trim().split('\n');
    assert.deepEqual(
      lines.map((line) => line.replace(/ \(.*\)$/, '')),
      UNRECORDED.map((id) => `Asset ${id} is decommissioned in its row, but the trail holds no decommission event for it: its row was changed`),
      stderr,
    );
    assert.equal(code, 1);
  });
});
