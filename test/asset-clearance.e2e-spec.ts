import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { ACCESS_DENIED, expectErrorBody, getAsset, listAssets } from './support/http';
import { type Route, routesOf } from './support/openapi';
import { startTestApp, type TestApp } from './support/test-app';

/** An active asset, a decommissioned one and one that does not exist. */
const ASSET_IDS = ['TIE-0001', 'OLD-0001', 'XYZ-9999'];

/**
 * The rule for revealing an asset (docs/api.md): whether an asset exists is told only to clearance 7
 * and up, those who may decommission it. Every asset route of the served document is walked, so a new
 * one is held to the rule without editing this test.
 */
describeEachDatabase('revealing an asset: clearance 7 on every asset route', (engine) => {
  let t: TestApp;
  let assetRoutes: Route[];

  before(async () => {
    t = await startTestApp({ engine });
    const document = (await t.http().get('/docs-json').expect(200)).body;
    assetRoutes = routesOf(document).filter(({ path }) => path.startsWith('/v1/assets'));
  });
  after(() => t.close());

  const lastEvent = () => t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

  it('finds every asset route: the listing, the read, the decommission, the batch and the recommission', () => {
    assert.deepEqual(assetRoutes.map(({ method, path }) => `${method} ${path}`).sort(), [
      'delete /v1/assets/{asset_id}',
      'get /v1/assets',
      'get /v1/assets/{asset_id}',
      'post /v1/assets/decommissions',
      'post /v1/assets/{asset_id}/recommission',
    ]);
  });

  it('answers clearance 0 to 6 the same 403 ASSET_ACCESS_DENIED on every asset route, whatever the asset, and records each refusal', async () => {
    for (const route of assetRoutes) {
      for (const prefix of ['', '/api']) {
        for (const assetId of route.path.includes('{asset_id}') ? ASSET_IDS : ['']) {
          for (const clearance of [0, 3, 6]) {
            const path = `${prefix}${route.path.replace('{asset_id}', assetId)}${assetId ? '' : '?status=decommissioned'}`;
            const label = `${route.method} ${path} with clearance ${clearance}`;
            const res = await t.http()[route.method](path).set('Authorization', t.bearer(`officer-${clearance}`, clearance)).send(route.operation.requestBody ? DECOMMISSION_BODY : undefined);
            assert.equal(res.status, 403, label);
            assert.deepEqual(res.body, ACCESS_DENIED, label);
            const event = await lastEvent();
            assert.deepEqual([event.outcome, event.reason, event.actor, event.request_id], ['denied', 'CLEARANCE_INSUFFICIENT', `officer-${clearance}`, res.headers['x-request-id']], label);
          }
        }
      }
    }
    assert.equal((await t.db.selectFrom('assets').select('status').where('asset_id', '=', 'TIE-0001').executeTakeFirstOrThrow()).status, 'active');
  });

  it('records a refused read under asset.read', async () => {
    await getAsset(t, 'TIE-0001', t.bearer('cadet-2', 2)).expect(403);
    const event = await lastEvent();
    assert.deepEqual([event.action, event.asset_id, event.path], ['asset.read', 'TIE-0001', '/v1/assets/TIE-0001']);
  });

  it('tells clearance 7 whether the asset exists', async () => {
    const admiral = t.bearer('admiral-7', 7);
    await getAsset(t, 'TIE-0001', admiral).expect(200);
    expectErrorBody(await getAsset(t, 'XYZ-9999', admiral), 404, 'ASSET_NOT_FOUND');
    await listAssets(t, '', admiral).expect(200);
  });
});
