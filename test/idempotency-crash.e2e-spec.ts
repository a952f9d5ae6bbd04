import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { loadAppConfig } from '../src/config';
import { createDatabase, type DB } from '../src/database';
import { createTestDatabase, describeEachDatabase, type TestDatabase, type TestEngine } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { migrateAndImport, type RunningServer, runScript, SCRIPTS, startServer } from './support/processes';
import { type CommitHold, TcpProxy } from './support/tcp-proxy';
import { waitUntil } from './support/wait';

const BATCH_SIZE = 5;
/** A round's SIGKILL comes after a random number of its decisions were sent, up to this many: a count, not a time, so a faster machine does not run out of assets. */
const MOST_DECISIONS_BEFORE_KILL = 200;

/** A decision sent with an Idempotency-Key: a DELETE of one asset, or a batch decommission of several. */
interface KeyedDecision {
  key: string;
  assetIds: string[];
}

/** What a client got: an answer, or none (the server died with the request in flight). */
type Answer = { status: number; replayed: boolean; decommissioned: string[] } | undefined;

/** A server process on a database of its own, with its active assets, sent keyed decisions by an officer. */
class CrashBed {
  cwd = '';
  env: Record<string, string> = {};
  db!: Kysely<DB>;
  server!: RunningServer;
  private database?: TestDatabase;
  private officer = '';
  private nextAsset = 0;

  async open(engine: TestEngine, name: string): Promise<void> {
    this.cwd = mkdtempSync(join(tmpdir(), `fleet-registry-${name}-`));
    this.database = await createTestDatabase(engine, this.cwd);
    this.env = { DATABASE_URL: this.database.url, JWT_SECRET: 'idempotency-crash-secret-of-32-chars!', SEED_DEMO: 'false', MIGRATE_ON_START: 'false', RATE_LIMIT_ENABLED: 'false' };
    await migrateAndImport(this.cwd, this.env, { vessels: [], assets: ASSETS.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-421' })) });
    this.officer = (await runScript(SCRIPTS.token, ['--sub', 'officer-7', '--clearance', '7'], { cwd: this.cwd, env: this.env })).stdout.trim();
    this.db = createDatabase(loadAppConfig(this.env, this.cwd).database);
  }

  /** Starts (or restarts) the server, with `env` over the bed's. */
  async start(env: Record<string, string> = {}): Promise<void> {
    this.server = await startServer({ cwd: this.cwd, env: { ...this.env, ...env } });
  }

  async kill(): Promise<void> {
    const { child } = this.server;
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) {
      await once(child, 'exit');
    }
  }

  /** A new decision on assets no other decision names: a DELETE, or a batch of BATCH_SIZE. */
  decision(kind: 'delete' | 'batch'): KeyedDecision {
    const count = kind === 'delete' ? 1 : BATCH_SIZE;
    const assetIds = ASSETS.slice(this.nextAsset, this.nextAsset + count);
    this.nextAsset += count;
    assert.equal(assetIds.length, count, 'assets left for the test');
    return { key: randomUUID(), assetIds };
  }

  /** Sends the decision with its key; undefined when no answer came (the server was killed). */
  async send({ key, assetIds }: KeyedDecision): Promise<Answer> {
    const [path, body] = assetIds.length === 1 ? [`/v1/assets/${assetIds[0]}`, DECOMMISSION_BODY] : ['/v1/assets/decommissions', { asset_ids: assetIds, ...DECOMMISSION_BODY }];
    try {
      const response = await fetch(`${this.server.url}${path}`, {
        method: assetIds.length === 1 ? 'DELETE' : 'POST',
        headers: { Authorization: `Bearer ${this.officer}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      const answered = (await response.json()) as { data?: { asset_id?: string; decommissioned?: { asset_id: string }[] } };
      const decommissioned = answered.data?.decommissioned?.map((asset) => asset.asset_id) ?? (answered.data?.asset_id ? [answered.data.asset_id] : []);
      return { status: response.status, replayed: response.headers.get('Idempotent-Replayed') === 'true', decommissioned };
    } catch {
      return undefined;
    }
  }

  /** Each asset's status, and how many allowed asset.decommission events the trail holds for it, once no event waits to be chained. */
  async recorded(assetIds: string[]): Promise<{ statuses: string[]; events: number[] }> {
    await waitUntil(
      async () => Number((await this.db.selectFrom('audit_pending').select((eb) => eb.fn.countAll().as('count')).executeTakeFirstOrThrow()).count) === 0,
      'every event chained',
      15_000,
    );
    const statuses = await this.db.selectFrom('assets').select(['asset_id', 'status']).where('asset_id', 'in', assetIds).execute();
    const events = await this.db
      .selectFrom('audit_events')
      .select(['asset_id', (eb) => eb.fn.countAll().as('count')])
      .where('action', '=', 'asset.decommission')
      .where('outcome', '=', 'allowed')
      .where('asset_id', 'in', assetIds)
      .groupBy('asset_id')
      .execute();
    return {
      statuses: assetIds.map((assetId) => statuses.find((row) => row.asset_id === assetId)?.status ?? 'absent'),
      events: assetIds.map((assetId) => Number(events.find((row) => row.asset_id === assetId)?.count ?? 0)),
    };
  }

  /** Every asset of the decisions decommissioned, each recorded by exactly one allowed event. */
  async expectDecidedOnce(decisions: KeyedDecision[]): Promise<void> {
    const assetIds = decisions.flatMap((decision) => decision.assetIds);
    const { statuses, events } = await this.recorded(assetIds);
    assert.deepEqual(statuses, assetIds.map(() => 'decommissioned'));
    assert.deepEqual(events, assetIds.map(() => 1), 'one asset.decommission event per asset');
  }

  async close(): Promise<void> {
    await this.server?.stop();
    await this.db?.destroy();
    await this.database?.drop();
    rmSync(this.cwd, { recursive: true, force: true });
  }
}

/** The retry of a decision whose first answer was lost: 200 at once, replayed or decided now, for the decision's assets. */
function expectRetryAnswered(retry: Answer, decision: KeyedDecision): void {
  assert.ok(retry, 'the retry is answered');
  assert.equal(retry.status, 200, `the retry is decided or replayed, not refused (got ${retry.status})`);
  assert.deepEqual(retry.decommissioned, decision.assetIds);
}

const WORKERS = 6;
const ROUNDS = 3;
/** Enough for every round's decisions, each up to a batch. */
const ASSETS = Array.from({ length: ROUNDS * MOST_DECISIONS_BEFORE_KILL * BATCH_SIZE }, (_, index) => `IDC-${String(index).padStart(4, '0')}`);

describeEachDatabase('Idempotency-Key through SIGKILLs of the server at random moments of keyed decisions', (engine) => {
  const bed = new CrashBed();

  before(async () => {
    await bed.open(engine, 'idempotency-crash');
    await bed.start();
  });
  after(() => bed.close());

  it('answers every retry after a restart at once, with the kept answer or the decision applied now, and decides each asset once', { timeout: 180_000 }, async (t) => {
    const decisions: KeyedDecision[] = [];
    let lost = 0;
    let replayed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const unanswered: KeyedDecision[] = [];
      let killed = false;
      let sent = 0;
      const killAfter = WORKERS + Math.floor(Math.random() * (MOST_DECISIONS_BEFORE_KILL - WORKERS));
      let killNow = () => {};
      const killMoment = new Promise<void>((resolve) => (killNow = resolve));
      const workers = Array.from({ length: WORKERS }, async (_, worker) => {
        for (let n = 0; !killed; n++) {
          const decision = bed.decision((worker + n) % 3 === 0 ? 'batch' : 'delete');
          decisions.push(decision);
          if (++sent === killAfter) {
            // No decision starts after this one; it and the others' in flight are cut.
            killed = true;
            killNow();
          }
          const answer = await bed.send(decision);
          if (answer) {
            assert.equal(answer.status, 200, 'a first request is decided');
          } else {
            unanswered.push(decision);
          }
        }
      });
      await killMoment;
      await bed.kill();
      await Promise.all(workers);
      await bed.start();
      lost += unanswered.length;
      for (const decision of unanswered) {
        const retry = await bed.send(decision);
        expectRetryAnswered(retry, decision);
        replayed += retry?.replayed ? 1 : 0;
      }
    }
    assert.ok(lost >= ROUNDS, 'each SIGKILL cut decisions in flight');
    await bed.expectDecidedOnce(decisions);
    t.diagnostic(`${decisions.length} keyed decisions, ${lost} cut by a SIGKILL and retried after the restart: ${replayed} replayed, ${lost - replayed} decided by the retry`);
  });
});

describe('Idempotency-Key through a SIGKILL at the COMMIT of its decision [postgres]', { skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL' }, () => {
  const bed = new CrashBed();
  let proxy: TcpProxy;
  /** The server's DATABASE_URL: through the relay, which holds a COMMIT when told. */
  const relayed: Record<string, string> = {};

  before(async () => {
    await bed.open('postgres', 'idempotency-commit');
    const url = new URL(bed.env.DATABASE_URL);
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    relayed.DATABASE_URL = url.toString();
    await bed.start(relayed);
  });
  after(async () => {
    await bed.close();
    await proxy?.cut();
  });

  const cases: { stage: CommitHold; kind: 'delete' | 'batch'; seen: string }[] = [
    { stage: 'before-commit', kind: 'delete', seen: 'decided by the retry, as nothing committed' },
    { stage: 'before-commit', kind: 'batch', seen: 'decided by the retry, as nothing committed' },
    { stage: 'after-commit', kind: 'delete', seen: 'the kept answer, Idempotent-Replayed: true' },
    { stage: 'after-commit', kind: 'batch', seen: 'the kept answer, Idempotent-Replayed: true' },
  ];
  for (const { stage, kind, seen } of cases) {
    it(`${kind === 'delete' ? 'a keyed DELETE' : 'a keyed batch'} whose server is SIGKILLed with its COMMIT ${stage === 'before-commit' ? 'not yet at the database' : 'made but unanswered'}: the retry after a restart gets ${seen}`, { timeout: 60_000 }, async () => {
      const decision = bed.decision(kind);
      const held = proxy.holdCommit(decision.key, stage);
      const first = bed.send(decision);
      assert.equal(await Promise.race([held.then(() => 'held'), first.then(() => 'answered')]), 'held', 'the COMMIT was held');
      await bed.kill();
      assert.equal(await first, undefined, 'the client got no answer');
      await bed.start(relayed);

      const key = await bed.db.selectFrom('idempotency_keys').select('status').where('idempotency_key', '=', decision.key).executeTakeFirst();
      const { statuses } = await bed.recorded(decision.assetIds);
      if (stage === 'before-commit') {
        assert.equal(key, undefined, 'the crash left nothing under the key');
        assert.deepEqual(statuses, decision.assetIds.map(() => 'active'));
      } else {
        assert.equal(key?.status, 200, 'the answer kept with the decision');
        assert.deepEqual(statuses, decision.assetIds.map(() => 'decommissioned'));
      }

      const retry = await bed.send(decision);
      expectRetryAnswered(retry, decision);
      assert.equal(retry?.replayed, stage === 'after-commit');
      await bed.expectDecidedOnce([decision]);
    });
  }
});
