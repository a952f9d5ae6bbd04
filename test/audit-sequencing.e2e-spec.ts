import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB, DedicatedSession } from '../src/database';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { type RunningServer, runScript, SCRIPTS, startServer, migrateAndImport } from './support/processes';

const SEQUENCING_TIMEOUT_MS = 1_500;
const READINESS_LAG_MS = 300;

/** What each suite starts from: a migrated PostgreSQL schema holding its assets, the servers' environment, a clearance-9 bearer and a connection of the test's own. */
interface SequencingLab {
  cwd: string;
  database: TestDatabase;
  env: Record<string, string>;
  bearer: string;
  db: Kysely<DB>;
}

async function openLab(prefix: string, assetIds: string[], settings: Record<string, string> = {}): Promise<SequencingLab> {
  const cwd = mkdtempSync(join(tmpdir(), prefix));
  const database = await createTestDatabase('postgres', cwd);
  const env = {
    DATABASE_URL: database.url,
    JWT_SECRET: 'audit-sequencing-secret-of-32-characters',
    SEED_DEMO: 'false',
    MIGRATE_ON_START: 'false',
    RATE_LIMIT_ENABLED: 'false',
    ...settings,
  };
  await migrateAndImport(cwd, env, { vessels: [], assets: assetIds.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-421' })) });
  const bearer = `Bearer ${(await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd, env })).stdout.trim()}`;
  const db = createDatabase(loadAppConfig({ DATABASE_URL: database.url }, cwd).database);
  return { cwd, database, env, bearer, db };
}

async function closeLab(lab: SequencingLab | undefined): Promise<void> {
  await lab?.db.destroy();
  await lab?.database.drop();
  if (lab) {
    rmSync(lab.cwd, { recursive: true, force: true });
  }
}

/** A DELETE of `assetId` on `server`, with `headers` besides the token and the body's type. */
const decommissionOn = (server: RunningServer, bearer: string, assetId: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/v1/assets/${assetId}`, {
    method: 'DELETE',
    headers: { Authorization: bearer, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(DECOMMISSION_BODY),
  });

/**
 * The test holds the sequencer's advisory lock itself, so the instance decides but cannot sequence:
 * its decision waits, is answered 503 past the bound, and readiness and the lag metric show the lag;
 * once the lock is released the instance takes it over and chains what waited.
 */
describe('a PostgreSQL instance whose audit events cannot be sequenced', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  let lab: SequencingLab;
  let db: Kysely<DB>;
  let blocker: DedicatedSession;
  let server: RunningServer;

  const decommission = (assetId: string) => decommissionOn(server, lab.bearer, assetId, { 'X-Request-Id': `sequencing-${assetId}` });
  const ready = async () => fetch(`${server.url}/health/ready`).then(async (response) => ({ status: response.status, body: (await response.json()) as { message?: string } }));
  const lagSeconds = async () => Number((await (await fetch(`${server.url}/metrics`)).text()).match(/^fleet_registry_audit_sequencing_lag_seconds (\S+)$/m)?.[1]);
  const waitingCount = async () => Number((await db.selectFrom('audit_pending').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);

  before(async () => {
    lab = await openLab('fleet-registry-audit-sequencing-', ['SEQ-0001', 'SEQ-0002'], {
      AUDIT_SEQUENCING_TIMEOUT_MS: String(SEQUENCING_TIMEOUT_MS),
      AUDIT_READINESS_LAG_MS: String(READINESS_LAG_MS),
      AUDIT_TAKEOVER_INTERVAL_MS: '200',
    });
    db = lab.db;
    blocker = await DedicatedSession.open(db, () => undefined);
    assert.ok(await blocker.tryLock('audit-sequencer'), 'the test holds the sequencer lock before the instance starts');
    server = await startServer({ cwd: lab.cwd, env: lab.env });
  });
  after(async () => {
    blocker?.close();
    await server?.stop();
    await closeLab(lab);
  });

  it('is ready while nothing waits', async () => {
    assert.equal((await ready()).status, 200);
    assert.equal(await lagSeconds(), 0);
  });

  it('commits the decision but answers 503 once its event has waited past the bound, unready meanwhile', async () => {
    const answer = decommission('SEQ-0001');
    await sleep(READINESS_LAG_MS + 400);
    assert.deepEqual(await ready(), { status: 503, body: { status: 'error', message: "The audit trail's sequencing lags", error_code: 'SERVICE_UNAVAILABLE' } });
    assert.ok((await lagSeconds()) > READINESS_LAG_MS / 1000);

    const response = await answer;
    assert.equal(response.status, 503);
    assert.equal(((await response.json()) as { error_code: string }).error_code, 'SERVICE_UNAVAILABLE');
    const asset = await db.selectFrom('assets').select('status').where('asset_id', '=', 'SEQ-0001').executeTakeFirstOrThrow();
    assert.equal(asset.status, 'decommissioned', 'the decision committed');
    assert.equal(await waitingCount(), 1, 'its event waits, durable, for its place');
    assert.equal((await ready()).status, 200, 'nothing of the instance waits any more');
  });

  it('chains what waited once the lock is free, and answers decisions at once again', async () => {
    blocker.close();
    const deadline = Date.now() + 5_000;
    while ((await waitingCount()) > 0 && Date.now() < deadline) {
      await sleep(50);
    }
    assert.equal(await waitingCount(), 0);
    assert.equal((await decommission('SEQ-0002')).status, 200);
    const events = await db.selectFrom('audit_events').select(['request_id', 'outcome']).where('request_id', 'like', 'sequencing-%').orderBy('id').execute();
    assert.deepEqual(events, [
      { request_id: 'sequencing-SEQ-0001', outcome: 'allowed' },
      { request_id: 'sequencing-SEQ-0002', outcome: 'allowed' },
    ]);
  });
});

/**
 * Two instances on one PostgreSQL schema, the first holding the sequencer's lock, with the default
 * AUDIT_SEQUENCER_INTERVAL_MS (1 s). Idle, the sequencer sleeps rather than looking for events every few
 * milliseconds; events committed on either instance wake it, so no decision waits out the interval.
 */
describe('an idle PostgreSQL audit sequencer', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  const ASSETS = Array.from({ length: 10 }, (_, index) => `IDL-${String(index + 1).padStart(4, '0')}`);
  let lab: SequencingLab;
  let db: Kysely<DB>;
  let sequencing: RunningServer;
  let other: RunningServer;

  const decommission = (server: RunningServer, assetId: string) => decommissionOn(server, lab.bearer, assetId);
  /** Reads of the schema's queue of waiting events, as PostgreSQL counts them (flushed about once a second). */
  const queueReads = async () => {
    const { rows } = await sql<{ reads: string }>`
      select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as reads from pg_stat_user_tables
      where schemaname = current_schema() and relname = 'audit_pending'`.execute(db);
    return Number(rows[0].reads);
  };
  const sequencerLockHeld = async () =>
    Number((await sql<{ held: string }>`select count(*) as held from pg_locks where locktype = 'advisory' and granted`.execute(db)).rows[0].held) > 0;

  before(async () => {
    lab = await openLab('fleet-registry-audit-idle-', ASSETS);
    db = lab.db;
    sequencing = await startServer({ cwd: lab.cwd, env: lab.env });
    for (const deadline = Date.now() + 10_000; !(await sequencerLockHeld()); await sleep(50)) {
      assert.ok(Date.now() < deadline, 'the first instance took no sequencer lock within 10 s');
    }
    other = await startServer({ cwd: lab.cwd, env: lab.env });
  });
  after(async () => {
    await other?.stop();
    await sequencing?.stop();
    await closeLab(lab);
  });

  it('reads the queue of waiting events a few times in three idle seconds, not hundreds', async () => {
    await sleep(1_500);
    const before = await queueReads();
    await sleep(3_000);
    const reads = (await queueReads()) - before;
    assert.ok(reads < 30, `${reads} reads of the queue in 3 idle seconds`);
  });

  for (const [label, server] of [
    ['the instance that sequences', () => sequencing],
    ['another instance', () => other],
  ] as const) {
    it(`places the events of decisions on ${label} without waiting out the interval`, async () => {
      const assets = label === 'another instance' ? ASSETS.slice(5) : ASSETS.slice(0, 5);
      const started = performance.now();
      for (const assetId of assets) {
        assert.equal((await decommission(server(), assetId)).status, 200);
      }
      const elapsedMs = performance.now() - started;
      // Each answer waits for its event's place; a sequencer that only woke every second would take about four seconds.
      assert.ok(elapsedMs < 2_000, `five decisions one after another took ${Math.round(elapsedMs)} ms`);
    });
  }
});
