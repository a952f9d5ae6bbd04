import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { blockedBy, holdAssetRow, testEngines } from './support/databases';
import { FIXTURE_RECORDS } from './support/fixtures';
import { decommission, recommission, verifyAuditChain } from './support/http';
import { holdSqliteWriteLock, runScript, SCRIPTS } from './support/processes';
import { TcpProxy } from './support/tcp-proxy';
import { startInstanceBeside, startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const ASK = { reason: 'Damaged beyond repair', authorized_by: 'officer-9' };

/**
 * The two-person rule takes force for every decision that reads the policy after the change commits, and
 * no decision that read the policy before it commits after it: otherwise a DELETE in flight while
 * `npm run db:decommission-approval -- required` runs decommissions alone once the rule is in force.
 */
describe('a change of the approval policy and the decisions in flight', () => {
  let t: TestApp;
  let dir: string;

  const officer = () => t.bearer('officer-7', 7);

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-policy-change-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('[sqlite]', () => {
    before(async () => {
      t = await startTestApp({ env: { DECOMMISSION_APPROVAL: 'none' } });
    });
    after(() => t.close());

    it('a DELETE waiting for the write lock while another writer makes approval required opens a request', async () => {
      const path = t.config.database.dialect === 'sqlite' ? t.config.database.path : '';
      // Another process: this one's app would wait for the lock synchronously, and stop the test with it.
      const beside = await startInstanceBeside(t, { DATABASE_URL: `sqlite:${path}` });
      try {
        const lock = await holdSqliteWriteLock(path, 1_000, "update decommission_policy set policy = 'required'");
        const res = await request(beside.url).delete('/v1/assets/TIE-0001').set('Authorization', officer()).send(ASK);
        await lock.released;
        assert.equal(res.status, 202, JSON.stringify(res.body));
        const row = await t.db.selectFrom('assets').select('status').where('asset_id', '=', 'TIE-0001').executeTakeFirstOrThrow();
        assert.equal(row.status, 'active');
      } finally {
        await beside.stop();
      }
    });
  });

  describe('[postgres]', { skip: !testEngines().includes('postgres') }, () => {
    before(async () => {
      const assets = [...FIXTURE_RECORDS.assets, { asset_id: 'TIE-0003', asset_type: 'vehicle', former_pilot: 'TK-422' }];
      t = await startTestApp({ engine: 'postgres', env: { DECOMMISSION_APPROVAL: 'none' }, records: { ...FIXTURE_RECORDS, assets } });
    });
    after(() => t.close());

    /** Each decision whose route reads the policy, on an asset it can change under `none`. */
    const decisions = [
      { route: 'a DELETE', assetId: 'TIE-0001', next: 'TIE-0002', send: () => decommission(t, 'TIE-0001', officer(), ASK) },
      { route: 'a recommission', assetId: 'OLD-0001', next: 'FAC-0001', send: () => recommission(t, 'OLD-0001', officer(), ASK) },
      {
        route: 'a batch',
        assetId: 'EQP-0001',
        next: 'TIE-0003',
        send: () => t.http().post('/v1/assets/decommissions').set('Authorization', officer()).send({ asset_ids: ['EQP-0001'], ...ASK }),
      },
    ];
    for (const { route, assetId, next, send } of decisions) {
      it(`npm run db:decommission-approval -- required waits for ${route} that read the policy it replaces`, async () => {
        const url = t.config.database.dialect === 'postgres' ? t.config.database.url : '';
        const setPolicy = (policy: string) => runScript(SCRIPTS.decommissionApproval, [policy], { cwd: dir, env: { DATABASE_URL: url } });
        assert.equal((await setPolicy('none')).code, 0);
        // The test holds the asset's row, so the decision, its policy read, waits for the row.
        const row = await holdAssetRow(t.db, assetId);
        const deciding = send().then((res) => res);
        await waitUntil(async () => (await blockedBy(t.db, row.holder)).length > 0, 'the decision waits for the row');
        const [decision] = await blockedBy(t.db, row.holder);

        let changed = false;
        const change = setPolicy('required').then((result) => {
          changed = true;
          return result;
        });
        await waitUntil(async () => changed || (await blockedBy(t.db, decision)).length > 0, 'the change ends, or waits for the decision', 20_000);
        const changedWhileDeciding = changed;
        await row.release();

        const [res, result] = await Promise.all([deciding, change]);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(changedWhileDeciding, false, 'the policy changed while a decision that read the old one was still to commit');
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal((await decommission(t, next, officer(), ASK)).status, 202, 'the next DELETE opens a request');
      });
    }
  });

  describe('[postgres], the command across a slow network', { skip: !testEngines().includes('postgres') }, () => {
    const assets = Array.from({ length: 3_000 }, (_, n) => ({ asset_id: `QQA-${String(n).padStart(4, '0')}`, asset_type: 'vehicle', former_pilot: 'TK-421' }));
    let proxy: TcpProxy;

    before(async () => {
      t = await startTestApp({ engine: 'postgres', env: { DECOMMISSION_APPROVAL: 'none' }, records: { vessels: FIXTURE_RECORDS.vessels, assets } });
      const { hostname, port } = new URL(process.env.TEST_DATABASE_URL as string);
      proxy = await TcpProxy.start({ host: hostname, port: Number(port) }, { delayMs: 300 });
    });
    after(async () => {
      await proxy.cut();
      await t.close();
    });

    it('dates the change after every decision made under the old policy, so audit:verify holds none of them to the new one', async () => {
      const slow = new URL(t.config.database.dialect === 'postgres' ? t.config.database.url : '');
      slow.hostname = '127.0.0.1';
      slow.port = String(proxy.port);
      // Between the command's BEGIN and its next statement lie 600 ms, in which DELETEs still read none.
      let changed = false;
      const change = runScript(SCRIPTS.decommissionApproval, ['required'], { cwd: dir, env: { DATABASE_URL: slow.toString() } }).finally(() => (changed = true));
      // Until the command ends, or a DELETE opens a request: the next would soon meet the officer's limit (429).
      const statuses: number[] = [];
      for (let n = 0; !changed && statuses.at(-1) !== 202; n++) {
        statuses.push((await decommission(t, assets[n].asset_id, officer(), ASK)).status);
      }
      const result = await change;
      assert.equal(result.code, 0, result.stderr);
      assert.ok(statuses.length > 100 && statuses.slice(0, -1).every((status) => status === 200), JSON.stringify(statuses));
      const verification = (await verifyAuditChain(t, t.bearer('auditor', 7)).expect(200)).body.data;
      assert.equal(verification.state, 'intact', JSON.stringify(verification.disagreeing_assets?.slice(0, 3)));
    });
  });
});
