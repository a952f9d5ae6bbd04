import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY, FIXTURE_RECORDS } from './support/fixtures';
import { logLines, type RunningServer, runScript, SCRIPTS, startServer, migrateAndImport } from './support/processes';
import { type ShiftedClock, shiftedClock } from './support/shifted-clock';
import { waitUntil } from './support/wait';

const SECRET = 'clock-skew-test-secret-of-at-least-32-chars';
const DAY_MS = 86_400_000;
/** How far ahead of this process's clock an event may be dated: the database runs on this machine. */
const TOLERANCE_MS = 2_000;

interface ListedEvent {
  id: number;
  occurred_at: string;
  action: string;
  outcome: string;
  asset_id: string | null;
}

describe('one instance with its clock a day ahead, on PostgreSQL', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  let cwd: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let dayAhead: ShiftedClock;
  let correct: RunningServer | undefined;
  let ahead: RunningServer | undefined;
  /** Each instance's token, minted by a process with its clock: the other would think it expired or not yet valid. */
  let correctToken: string;
  let aheadToken: string;

  const call = (server: RunningServer, token: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });
  const decommission = (server: RunningServer, token: string, assetId: string) =>
    call(server, token, `/v1/assets/${assetId}`, { method: 'DELETE', body: JSON.stringify(DECOMMISSION_BODY) });
  const mint = async (extraEnv: Record<string, string>) =>
    (await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd, env: { ...env, ...extraEnv } })).stdout.trim();

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-clock-'));
    dayAhead = shiftedClock(join(cwd, 'faketime'), '+1d');
    database = await createTestDatabase('postgres', cwd);
    env = { DATABASE_URL: database.url, JWT_SECRET: SECRET, SEED_DEMO: 'false', MIGRATE_ON_START: 'false', RATE_LIMIT_ENABLED: 'false' };
    await migrateAndImport(cwd, env, FIXTURE_RECORDS);

    correct = await startServer({ cwd, env });
    ahead = await startServer({ cwd, env: { ...env, ...dayAhead.env } });
    [correctToken, aheadToken] = await Promise.all([mint({}), mint(dayAhead.env)]);
  });
  after(async () => {
    await Promise.all([correct?.stop(), ahead?.stop()]);
    await database?.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('really runs the shifted instance a day ahead: its HTTP Date header says so', async () => {
    const served = Date.parse((await fetch(`${ahead!.url}/health/live`)).headers.get('date') ?? '');
    const lead = served - Date.now();
    assert.ok(Math.abs(lead - DAY_MS) < 5_000, `the shifted instance's clock leads by ${lead} ms`);
  });

  it('dates every event by the database: after the shifted instance decides, no later event of either instance is in the future', async () => {
    assert.equal((await decommission(ahead!, aheadToken, 'TIE-0001')).status, 200);
    assert.equal((await decommission(ahead!, aheadToken, 'TIE-9998')).status, 404);
    assert.equal((await decommission(correct!, correctToken, 'TIE-0002')).status, 200);
    assert.equal((await decommission(correct!, correctToken, 'TIE-9999')).status, 404);
    const checkedAt = Date.now();

    const listed = (await (await call(correct!, correctToken, '/v1/audit/events?limit=100')).json()) as { data: { events: ListedEvent[] } };
    const events = listed.data.events;
    assert.deepEqual(
      events.map(({ action, outcome, asset_id }) => `${action} ${outcome} ${asset_id}`),
      ['asset.decommission denied TIE-9999', 'asset.decommission allowed TIE-0002', 'asset.decommission denied TIE-9998', 'asset.decommission allowed TIE-0001'],
    );
    for (const event of events) {
      const lead = Date.parse(event.occurred_at) - checkedAt;
      assert.ok(lead <= TOLERANCE_MS, `event ${event.id} (${event.asset_id}) is dated ${event.occurred_at}, ${lead} ms in the future`);
    }
    for (let i = 1; i < events.length; i++) {
      assert.ok(events[i - 1].occurred_at >= events[i].occurred_at, 'occurred_at never decreases along the chain');
    }
    const asset = (await (await call(correct!, correctToken, '/v1/assets/TIE-0001')).json()) as { data: { decommissioned_at: string } };
    assert.equal(asset.data.decommissioned_at, events[3].occurred_at, "the shifted instance's decommission is dated as its event, by the database");
  });

  it('keeps a chain that verifies, decommissioned assets and their events agreeing', async () => {
    const verified = await runScript(SCRIPTS.auditVerify, [], { cwd, env });
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /intact: 4 events/);
  });

  it('reports the shifted instance not ready, naming its clock, and logs it once; the correct one stays ready; once its clock is right it is ready again', async () => {
    const ready = (server: RunningServer) => fetch(`${server.url}/health/ready`);
    const answer = await ready(ahead!);
    assert.equal(answer.status, 503);
    assert.deepEqual(await answer.json(), {
      status: 'error',
      message: "The instance's clock differs from the database's by more than CLOCK_SKEW_MAX_MS",
      error_code: 'SERVICE_UNAVAILABLE',
    });
    assert.equal((await ready(correct!)).status, 200);

    // Measured every 2 s: one more measurement that still disagrees adds no line.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const clockLines = () => logLines(ahead!).filter((line) => line.context === 'Clock');
    assert.deepEqual(clockLines().map(({ level }) => level), ['error'], JSON.stringify(clockLines()));
    assert.match(clockLines()[0].msg, /^This instance's clock is 86\d{6} ms ahead of the database's, more than CLOCK_SKEW_MAX_MS \(5000 ms\)/);

    dayAhead.shift('+0');
    const fixed = Date.now();
    await waitUntil(async () => (await ready(ahead!)).status === 200, 'the instance whose clock was put right is still not ready');
    console.log(`# clock put right: ready again after ${Date.now() - fixed} ms (libfaketime rereads its offset each second; checked every 2 s)`);
    assert.deepEqual(clockLines().map(({ level }) => level), ['error', 'info'], JSON.stringify(clockLines()));
    assert.deepEqual(
      logLines(correct!).filter((line) => line.context === 'Clock'),
      [],
    );
  });
});
