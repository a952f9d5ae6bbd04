import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB } from '../src/database';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { type RunningServer, runScript, SCRIPTS, startServer, migrateAndImport } from './support/processes';

const ASSETS = Array.from({ length: 2_000 }, (_, index) => `CRS-${String(index).padStart(4, '0')}`);
const WORKERS_PER_INSTANCE = 4;
/** What each acknowledged answer says was recorded; any other answer (none, 503) acknowledges nothing. */
const RECORDED: Record<number, 'allowed' | 'denied'> = { 200: 'allowed', 403: 'denied', 404: 'denied' };
/** The line an instance logs when it takes the sequencer's lock (PostgreSQL). */
const SEQUENCES = /This instance sequences the audit trail/;

/**
 * Two instances on one database decide concurrently while first one of them and then the other is
 * SIGKILLed and restarted, on PostgreSQL the sequencer's holder among them. Every decision a client saw
 * answered must then be in the chain once, each asset decommissioned exactly when its event is there,
 * and the chain must verify with times that never go back.
 */
describeEachDatabase('acknowledged decisions through SIGKILLs of instances and of the sequencer', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let db: Kysely<DB>;
  const instances: RunningServer[] = [];
  const tokens = { officer: '', cadet: '' };
  const acknowledged = new Map<string, 'allowed' | 'denied'>();
  let unanswered = 0;
  let sent = 0;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-audit-crash-'));
    database = await createTestDatabase(engine, cwd);
    env = {
      DATABASE_URL: database.url,
      JWT_SECRET: 'audit-crash-secret-of-at-least-32-chars',
      SEED_DEMO: 'false',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_ENABLED: 'false',
      AUDIT_TAKEOVER_INTERVAL_MS: '200',
    };
    await migrateAndImport(cwd, env, { vessels: [], assets: ASSETS.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-421' })) });
    for (const [role, clearance] of [['officer', '7'], ['cadet', '6']] as const) {
      tokens[role] = (await runScript(SCRIPTS.token, ['--sub', role, '--clearance', clearance], { cwd, env })).stdout.trim();
    }
    instances.push(...(await Promise.all([startServer({ cwd, env }), startServer({ cwd, env })])));
    db = createDatabase(loadAppConfig({ DATABASE_URL: database.url }, cwd).database);
  });
  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await db?.destroy();
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** One decision through instance `slot`: an officer's decommission of the next asset, or a cadet's refused one. */
  async function decide(slot: number): Promise<void> {
    const n = sent++;
    const requestId = `crash-${engine}-${n}`;
    const token = n % 2 === 0 ? tokens.officer : tokens.cadet;
    try {
      const response = await fetch(`${instances[slot].url}/v1/assets/${ASSETS[Math.floor(n / 2) % ASSETS.length]}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'X-Request-Id': requestId },
        body: JSON.stringify(DECOMMISSION_BODY),
        signal: AbortSignal.timeout(15_000),
      });
      await response.arrayBuffer();
      const recorded = RECORDED[response.status];
      if (recorded) {
        acknowledged.set(requestId, recorded);
      }
    } catch {
      unanswered++;
      await sleep(20);
    }
  }

  function decideUntilStopped(): () => Promise<void> {
    let running = true;
    const workers = instances.flatMap((_, slot) =>
      Array.from({ length: WORKERS_PER_INSTANCE }, async () => {
        while (running) {
          await decide(slot);
        }
      }),
    );
    return async () => {
      running = false;
      await Promise.all(workers);
    };
  }

  async function killAndRestart(slot: number): Promise<void> {
    const { child } = instances[slot];
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await sleep(500);
    instances[slot] = await startServer({ cwd, env });
  }

  /** On PostgreSQL the instance whose log says it took the sequencer's lock last; on SQLite each sequences its own commits. */
  function sequencerSlot(): number {
    const holders = instances.map((instance, slot) => ({ slot, took: instance.output().search(SEQUENCES) })).filter(({ took }) => took >= 0);
    assert.equal(holders.length, engine === 'postgres' ? 1 : 0, 'one instance holds the sequencer on PostgreSQL');
    return holders[0]?.slot ?? 0;
  }

  it('decides on both instances through a SIGKILL of one instance and then of the sequencer, each restarted', { timeout: 120_000 }, async (t) => {
    const stop = decideUntilStopped();
    await sleep(1_500);
    const holder = sequencerSlot();
    await killAndRestart(1 - holder);
    await sleep(1_000);
    await killAndRestart(holder);
    await sleep(1_500);
    await stop();

    const answers = [...acknowledged.values()];
    assert.ok(unanswered > 0, 'the SIGKILLs cut requests in flight');
    assert.ok(answers.filter((outcome) => outcome === 'allowed').length >= 20, 'decommissions were acknowledged');
    assert.ok(answers.filter((outcome) => outcome === 'denied').length >= 20, 'denials were acknowledged');
    t.diagnostic(`${sent} decisions sent, ${acknowledged.size} acknowledged, ${unanswered} unanswered`);
  });

  it('leaves no event waiting once the instances are back', async () => {
    const deadline = Date.now() + 10_000;
    let waiting = -1;
    while (Date.now() < deadline && waiting !== 0) {
      waiting = Number((await db.selectFrom('audit_pending').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count);
      await sleep(100);
    }
    assert.equal(waiting, 0);
  });

  it('has every acknowledged decision in the chain, once, with the outcome answered', async () => {
    const events = await db.selectFrom('audit_events').select(['request_id', 'outcome']).where('request_id', 'like', 'crash-%').execute();
    const byRequest = new Map<string, string[]>();
    for (const { request_id: requestId, outcome } of events) {
      byRequest.set(requestId, [...(byRequest.get(requestId) ?? []), outcome]);
    }
    assert.deepEqual(
      [...byRequest].filter(([, outcomes]) => outcomes.length > 1),
      [],
      'no decision recorded twice',
    );
    const missing = [...acknowledged].filter(([requestId, outcome]) => byRequest.get(requestId)?.[0] !== outcome);
    assert.deepEqual(missing, [], 'every acknowledged decision recorded as answered');
  });

  it('decommissions an asset exactly when one allowed event records it', async () => {
    const assets = await db.selectFrom('assets').select(['asset_id', 'status']).where('asset_id', 'like', 'CRS-%').execute();
    const allowed = await db
      .selectFrom('audit_events')
      .select(['asset_id', (eb) => eb.fn.countAll().as('count')])
      .where('outcome', '=', 'allowed')
      .where('asset_id', 'like', 'CRS-%')
      .groupBy('asset_id')
      .execute();
    const events = new Map(allowed.map((row) => [row.asset_id, Number(row.count)]));
    const torn = assets.filter(({ asset_id: assetId, status }) => (status === 'decommissioned' ? events.get(assetId) !== 1 : events.has(assetId)));
    assert.deepEqual(torn, []);
  });

  it('keeps a chain that npm run audit:verify finds intact, with times that never go back', async () => {
    const verified = await runScript(SCRIPTS.auditVerify, [], { cwd, env: { DATABASE_URL: database.url } });
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^Audit chain intact/);
    const times = (await db.selectFrom('audit_events').select('occurred_at').orderBy('id').execute()).map((event) => event.occurred_at);
    const backwards = times.filter((time, index) => index > 0 && time < times[index - 1]);
    assert.deepEqual(backwards, []);
  });
});
