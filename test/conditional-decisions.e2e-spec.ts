import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { auditEventsOf, decommission, expectErrorBody, getAsset, recommission } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const ETAG = /^"[A-Za-z0-9_-]{27}"$/;

describeEachDatabase('ETag and If-Match on the decisions about one asset', (engine) => {
  let t: TestApp;
  let admiral: string;

  const etagOf = async (assetId: string) => String((await getAsset(t, assetId, admiral).expect(200)).headers.etag);
  const statusOf = async (assetId: string) => (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;
  const eventsOf = async (assetId: string) => (await auditEventsOf(t, assetId)).map((event) => [event.action, event.outcome, event.reason]);
  /** A change of the record that no decision of this API makes: an import rewriting a field. */
  const reimport = (assetId: string, formerPilot: string) => t.db.updateTable('assets').set({ former_pilot: formerPilot }).where('asset_id', '=', assetId).execute();

  before(async () => {
    t = await startTestApp({ engine });
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  describe('GET /v1/assets/{asset_id}', () => {
    it('answers a strong ETag of the record, to be revalidated on every use', async () => {
      const res = await getAsset(t, 'TIE-0001', admiral).expect(200);
      assert.match(String(res.headers.etag), ETAG);
      assert.equal(res.headers['cache-control'], 'private, no-cache');
      assert.equal((await getAsset(t, 'TIE-0001', admiral).expect(200)).headers.etag, res.headers.etag);
      assert.notEqual(await etagOf('TIE-0002'), res.headers.etag);
    });

    it('answers 304 without a body to an If-None-Match naming the record, and 200 with a new ETag once it changed', async () => {
      const etag = await etagOf('EQP-0001');
      const unchanged = await getAsset(t, 'EQP-0001', admiral).set('If-None-Match', `"other", ${etag}`).expect(304);
      assert.equal(unchanged.text, '');
      assert.equal(unchanged.headers.etag, etag);

      await reimport('EQP-0001', 'DS-61-3');
      const changed = await getAsset(t, 'EQP-0001', admiral).set('If-None-Match', etag).expect(200);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(changed.body.data.former_pilot, 'DS-61-3');
    });

    it('refuses an If-None-Match over 1024 characters with 400 naming it', async () => {
      expectErrorBody(await getAsset(t, 'TIE-0001', admiral).set('If-None-Match', `"${'a'.repeat(1024)}"`), 400, 'VALIDATION_ERROR', 'If-None-Match');
    });
  });

  describe('DELETE and POST .../recommission with If-Match', () => {
    it('refuses a stale If-Match with 412 PRECONDITION_FAILED: the asset unchanged, the refusal recorded in the trail', async () => {
      const etag = await etagOf('TIE-0001');
      await reimport('TIE-0001', 'TK-422');

      expectErrorBody(await decommission(t, 'TIE-0001', admiral).set('If-Match', etag), 412, 'PRECONDITION_FAILED');
      assert.equal(await statusOf('TIE-0001'), 'active');
      assert.deepEqual(await eventsOf('TIE-0001'), [['asset.decommission', 'denied', 'PRECONDITION_FAILED']]);
    });

    it('decommissions with a fresh If-Match and answers the new record\'s ETag, which the next decision can name', async () => {
      const res = await decommission(t, 'TIE-0001', admiral).set('If-Match', `"stale", ${await etagOf('TIE-0001')}`).expect(200);
      assert.equal(res.headers.etag, await etagOf('TIE-0001'));

      const back = await recommission(t, 'TIE-0001', admiral).set('If-Match', String(res.headers.etag)).expect(200);
      assert.equal(back.headers.etag, await etagOf('TIE-0001'));
      assert.equal(await statusOf('TIE-0001'), 'active');
    });

    it('refuses a recommission whose If-Match names the record before its decommission', async () => {
      const before = await etagOf('TIE-0002');
      await decommission(t, 'TIE-0002', admiral).expect(200);

      expectErrorBody(await recommission(t, 'TIE-0002', admiral).set('If-Match', before), 412, 'PRECONDITION_FAILED');
      assert.equal(await statusOf('TIE-0002'), 'decommissioned');
      assert.deepEqual((await eventsOf('TIE-0002')).at(-1), ['asset.recommission', 'denied', 'PRECONDITION_FAILED']);
    });

    it('takes If-Match: * as any record, and compares strongly: a weak tag of the record does not match', async () => {
      expectErrorBody(await recommission(t, 'TIE-0002', admiral).set('If-Match', `W/${await etagOf('TIE-0002')}`), 412, 'PRECONDITION_FAILED');
      await recommission(t, 'TIE-0002', admiral).set('If-Match', '*').expect(200);
      assert.equal(await statusOf('TIE-0002'), 'active');
    });

    it('answers an absent or already decommissioned asset as without If-Match (404), whatever If-Match says', async () => {
      expectErrorBody(await decommission(t, 'XYZ-9999', admiral).set('If-Match', '*'), 404, 'ASSET_ACCESS_DENIED');
      expectErrorBody(await decommission(t, 'OLD-0001', admiral).set('If-Match', await etagOf('OLD-0001')), 404, 'ASSET_ACCESS_DENIED');
    });

    it('refuses an If-Match over 1024 characters with 400 naming it, changing nothing', async () => {
      expectErrorBody(await decommission(t, 'FAC-0001', admiral).set('If-Match', `"${'a'.repeat(1024)}"`), 400, 'VALIDATION_ERROR', 'If-Match');
      assert.equal(await statusOf('FAC-0001'), 'active');
    });

    it('of 10 concurrent DELETEs naming the same record, exactly one decommissions it', async () => {
      const etag = await etagOf('FAC-0001');
      const answers = await Promise.all(Array.from({ length: 10 }, () => decommission(t, 'FAC-0001', admiral, DECOMMISSION_BODY).set('If-Match', etag)));

      assert.deepEqual(answers.filter((res) => res.status === 200).length, 1);
      for (const res of answers.filter((answer) => answer.status !== 200)) {
        assert.ok([404, 412].includes(res.status), res.text);
      }
      const allowed = (await eventsOf('FAC-0001')).filter(([action, outcome]) => action === 'asset.decommission' && outcome === 'allowed');
      assert.equal(allowed.length, 1);
    });
  });
});

describeEachDatabase('If-Match with DECOMMISSION_APPROVAL=required', (engine) => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
  });
  after(() => t.close());

  it('opens no request when If-Match is stale (412, recorded), and opens one when it is fresh', async () => {
    const requester = t.bearer('officer-7', 7);
    const etag = String((await getAsset(t, 'TIE-0001', requester).expect(200)).headers.etag);
    await t.db.updateTable('assets').set({ former_pilot: 'TK-422' }).where('asset_id', '=', 'TIE-0001').execute();
    const ask = { reason: 'Worn out', authorized_by: 'officer-9' };

    expectErrorBody(await decommission(t, 'TIE-0001', requester, ask).set('If-Match', etag), 412, 'PRECONDITION_FAILED');
    assert.equal((await t.db.selectFrom('decommission_requests').selectAll().execute()).length, 0);
    assert.deepEqual((await auditEventsOf(t, 'TIE-0001')).map((event) => [event.action, event.reason]), [['asset.decommission', 'PRECONDITION_FAILED']]);

    const fresh = String((await getAsset(t, 'TIE-0001', requester).expect(200)).headers.etag);
    await decommission(t, 'TIE-0001', requester, ask).set('If-Match', fresh).expect(202);
  });
});
