import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { Client } from 'pg';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';
import { fillTrail } from './support/trail';
import { waitUntil } from './support/wait';

/** Long enough that a walk is still running while the test sends the requests that meet it. */
const EVENTS = 40_000;
const MAX = 2;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { status: string; data?: { state: string; length: number; head_hash: string }; error_code?: string; message?: string };
}

/**
 * GET /v1/audit/verify bounded per instance: one walk (one thread, on PostgreSQL one connection) per
 * trail head however many ask for it, and at most AUDIT_VERIFICATIONS_MAX walks at once; past that 503.
 */
describeEachDatabase('GET /v1/audit/verify, bounded per instance', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let t: TestApp;
  let base: string;
  let admin: Client | undefined;
  /** The server's connections to PostgreSQL, named by the application_name its DATABASE_URL gives them. */
  const applicationName = `verify-limits-${process.pid}`;

  const verify = async (): Promise<Answer> => {
    const res = await fetch(`${base}/v1/audit/verify`, { headers: { Authorization: t.bearer('admiral-7', 7) } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Answer['body'] };
  };
  /** The instance's own count of the walks it started, joined and refused, and of those running, from GET /metrics. */
  const metrics = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    return {
      started: value(/^fleet_registry_audit_verifications_total\{outcome="started"\} (\d+)$/m),
      joined: value(/^fleet_registry_audit_verifications_total\{outcome="joined"\} (\d+)$/m),
      refused: value(/^fleet_registry_audit_verifications_total\{outcome="refused"\} (\d+)$/m),
      running: value(/^fleet_registry_audit_verifications_running (\d+)$/m),
    };
  };
  const runningReaches = (count: number) => waitUntil(async () => (await metrics()).running >= count, `${count} walks never ran at once`);
  /** A refused request: its event moves the trail head on. */
  const moveTheHead = async () => assert.equal((await fetch(`${base}/v1/fleet/star-destroyers`)).status, 401);
  /** The verification threads' connections that PostgreSQL sees open now. */
  const verificationConnections = async () =>
    Number((await admin?.query<{ count: string }>('SELECT count(*) FROM pg_stat_activity WHERE application_name = $1', [`${applicationName}:audit-verify`]))?.rows[0].count ?? 0);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-verify-limits-'));
    const created = await createTestDatabase(engine, dir);
    database = engine === 'postgres' ? { ...created, url: `${created.url}&application_name=${applicationName}` } : created;
    t = await startTestApp({ engine, database, records: null, env: { AUDIT_VERIFICATIONS_MAX: String(MAX) } });
    await fillTrail(t.db, EVENTS);
    base = await listenOnLoopback(t);
    if (engine === 'postgres') {
      admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
    }
  });
  after(async () => {
    await admin?.end();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers requests that arrive while a walk of the same head runs with that walk: one thread, one answer', async () => {
    const before = await metrics();
    const answers = await Promise.all(Array.from({ length: 12 }, verify));

    assert.deepEqual(answers.map(({ status }) => status), Array(12).fill(200));
    assert.deepEqual(answers[0].body.data, { state: 'intact', length: EVENTS, head_hash: answers[0].body.data?.head_hash });
    for (const answer of answers) {
      assert.deepEqual(answer.body, answers[0].body);
    }
    const counted = await metrics();
    assert.deepEqual([counted.started - before.started, counted.joined - before.joined], [1, 11], 'one walk started, eleven requests joined it');
  });

  it(`refuses a walk of another head past AUDIT_VERIFICATIONS_MAX (${MAX}) with 503 AUDIT_VERIFICATIONS_BUSY and Retry-After, never queued; the running walks answer`, async () => {
    let [peakConnections, sampling] = [0, true];
    const sampler = (async () => {
      while (sampling) {
        peakConnections = Math.max(peakConnections, await verificationConnections());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const walks: Promise<Answer>[] = [];
    let refused: Answer;
    let running: Awaited<ReturnType<typeof metrics>>;
    let answered: Answer[];
    try {
      for (let started = 1; started <= MAX; started++) {
        await moveTheHead();
        walks.push(verify());
        await runningReaches(started);
      }
      await moveTheHead();
      refused = await verify();
      running = await metrics();
    } finally {
      answered = await Promise.all(walks);
      sampling = false;
      await sampler;
    }

    assert.equal(running.running, MAX, 'the walks were still running when the next was refused');
    assert.equal(refused.status, 503);
    assert.deepEqual(refused.body, { status: 'error', message: 'Too many audit chain verifications are running on this instance; retry later', error_code: 'AUDIT_VERIFICATIONS_BUSY' });
    assert.match(refused.retryAfter ?? '', /^[1-9][0-9]?$/);
    // Each walk reads the head again when its thread starts: it answers for that head or a later one.
    for (const [index, { status, body }] of answered.entries()) {
      assert.deepEqual([status, body.data?.state], [200, 'intact']);
      assert.ok((body.data?.length ?? 0) >= EVENTS + index + 1, `walk ${index + 1} answered for a head it was not asked for`);
    }
    if (engine === 'postgres') {
      assert.ok(peakConnections >= 1 && peakConnections <= MAX, `the walks held ${peakConnections} connections at most`);
    }
  });

  it('lets every thread go once its walk answers, and starts a walk again', async () => {
    assert.equal((await metrics()).running, 0);
    // A connection closed by its thread leaves pg_stat_activity once its backend has exited.
    await waitUntil(async () => (await verificationConnections()) === 0, 'a verification connection stayed open');
    await moveTheHead();
    assert.equal((await verify()).status, 200);
  });

  it('documents the refusal on the route, with its Retry-After', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const unavailable = doc.paths['/v1/audit/verify'].get.responses['503'];
    assert.match(unavailable.description, /\(SERVICE_UNAVAILABLE\); or AUDIT_VERIFICATIONS_MAX walks of other trail heads already run on this instance \(AUDIT_VERIFICATIONS_BUSY\)$/);
    assert.ok('Retry-After' in unavailable.headers);
  });
});
