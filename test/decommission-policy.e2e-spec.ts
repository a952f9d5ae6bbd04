import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { AssetsService } from '../src/assets/assets.service';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY, DECOMMISSIONED_ASSET } from './support/fixtures';
import { decommission, verifyAuditChain } from './support/http';
import { freePort, runScript, SCRIPTS, startServer } from './support/processes';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';

const ASK = { reason: 'Damaged beyond repair', authorized_by: 'officer-9' };

describeEachDatabase('the decommission approval policy, kept in the database', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let t: TestApp;

  /** The environment of another instance of the service on the same database. */
  const instanceEnv = (env: Record<string, string>) => ({
    DATABASE_URL: database.url,
    JWT_SECRET: TEST_JWT_SECRET,
    SEED_DEMO: 'false',
    MIGRATE_ON_START: 'false',
    RATE_LIMIT_ENABLED: 'false',
    ...env,
  });
  const setPolicy = (policy?: string) => runScript(SCRIPTS.decommissionApproval, policy === undefined ? [] : [policy], { cwd: dir, env: { DATABASE_URL: database.url } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-policy-'));
    database = await createTestDatabase(engine, dir);
    t = await startTestApp({ engine, database, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start an instance whose DECOMMISSION_APPROVAL disagrees with the database, in one line naming both and the way to change it', async () => {
    const started = await runScript(SCRIPTS.server, [], { cwd: dir, env: instanceEnv({ DECOMMISSION_APPROVAL: 'none', PORT: String(await freePort()) }), timeout: 20_000 });
    assert.equal(started.code, 1, started.stdout);
    assert.equal(
      started.stderr,
      'DECOMMISSION_APPROVAL=none disagrees with the policy in the database (required): unset DECOMMISSION_APPROVAL to follow the database, ' +
        'or change the policy of every instance with npm run db:decommission-approval -- none\n',
    );
  });

  it('starts an instance without DECOMMISSION_APPROVAL under the policy in the database', async () => {
    const other = await startServer({ cwd: dir, env: instanceEnv({}) });
    try {
      const res = await fetch(`${other.url}/v1/assets/TIE-0001`, {
        method: 'DELETE',
        headers: { Authorization: t.bearer('officer-7', 7), 'Content-Type': 'application/json' },
        body: JSON.stringify(ASK),
      });
      assert.equal(res.status, 202);
    } finally {
      await other.stop();
    }
  });

  it('changes the policy of running instances at their next decision through npm run db:decommission-approval', async () => {
    const changed = await setPolicy('none');
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /^Decommission approval policy: none \(was required\)/);
    assert.match((await setPolicy()).stdout, /^Decommission approval policy: none \(/);
    try {
      await decommission(t, 'TIE-0002', t.bearer('officer-7', 7), ASK).expect(200);
      assert.equal((await setPolicy('sometimes')).code, 2);
    } finally {
      assert.equal((await setPolicy('required')).code, 0);
    }
    await decommission(t, 'EQP-0001', t.bearer('officer-7', 7), ASK).expect(202);
  });
});

describeEachDatabase('audit:verify and the decommissions the trail does not vouch for', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let t: TestApp;

  const verify = async () => (await verifyAuditChain(t, t.bearer('auditor', 7)).expect(200)).body.data;
  const verifyByCommand = () => runScript(SCRIPTS.auditVerify, [], { cwd: dir, env: { DATABASE_URL: database.url } });
  const statusOf = async (assetId: string) =>
    (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-verify-assets-'));
    database = await createTestDatabase(engine, dir);
    t = await startTestApp({ engine, database, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes an asset imported as decommissioned, which has no event', async () => {
    assert.equal(await statusOf(DECOMMISSIONED_ASSET.asset_id), 'decommissioned');
    assert.equal((await verify()).state, 'intact');
    assert.equal((await verifyByCommand()).code, 0);
  });

  it('catches an asset marked decommissioned in its row with no decommission event in the trail', async () => {
    const row = { status: 'decommissioned' as const, decommission_reason: 'Quietly retired', authorized_by: 'officer-9', decommissioned_at: new Date().toISOString() };
    await t.db.updateTable('assets').set(row).where('asset_id', '=', 'TIE-0001').execute();
    try {
      const result = await verify();
      assert.equal(result.state, 'broken');
      assert.deepEqual(result.disagreeing_assets, [{ asset_id: 'TIE-0001', event_id: null, fields: ['decommission_event'] }]);
      const command = await verifyByCommand();
      assert.equal(command.code, 1);
      assert.match(command.stderr, /^Asset TIE-0001 is decommissioned in its row, but the trail holds no decommission event for it: its row was changed \(/);
    } finally {
      await t.db.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', 'TIE-0001').execute();
    }
    assert.equal((await verify()).state, 'intact');
  });

  it('catches a decommission under DECOMMISSION_APPROVAL=required that went through no request, as an instance set otherwise would write it', async () => {
    // What a DELETE on an instance that decommissions alone does: the change and its event, no request.
    const origin = { requestId: randomUUID(), ip: '127.0.0.1', method: 'DELETE', path: '/v1/assets/TIE-0002', assetId: 'TIE-0002' };
    await t.app.get(AssetsService).decommission('TIE-0002', DECOMMISSION_BODY, { id: 'officer-7', clearance: 7 }, origin);

    const result = await verify();
    assert.equal(result.state, 'broken');
    assert.equal(result.disagreeing_assets.length, 1);
    const [{ asset_id, event_id, fields }] = result.disagreeing_assets;
    assert.deepEqual([asset_id, fields], ['TIE-0002', ['approval']]);
    const command = await verifyByCommand();
    assert.equal(command.code, 1);
    assert.equal(
      command.stderr.split('\n')[0].replace(/ \(.*\)$/, ''),
      `Asset TIE-0002 was decommissioned by event ${event_id} while DECOMMISSION_APPROVAL=required was in force, but the event names no approved request: an instance decommissioned it alone`,
    );
  });
});
