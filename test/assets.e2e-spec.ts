import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import type { AssetRow } from '../src/database';
import { DECOMMISSION_BODY, DECOMMISSION_RESULT_KEYS, DECOMMISSIONED_ASSET, FIXTURE_RECORDS } from './support/fixtures';
import { describeEachDatabase } from './support/databases';
import { decommission, expectErrorBody, getAsset, itRefusesInvalidPaging, listAssets } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const ASSET_KEYS = [...DECOMMISSION_RESULT_KEYS, 'status'].sort();
const ALL_IDS = FIXTURE_RECORDS.assets.map((a) => a.asset_id).sort();
const assets = (res: Response) => res.body.data.assets as AssetRow[];
const assetIds = (res: Response) => assets(res).map((a) => a.asset_id);

describeEachDatabase('GET /v1/assets/:asset_id and GET /v1/assets', (engine) => {
  let t: TestApp;
  let token: string;

  const list = (query: string) => listAssets(t, query, token).expect(200);
  const rejects = async (query: string, field: string) => expectErrorBody(await listAssets(t, query, token), 400, 'VALIDATION_ERROR', field);

  before(async () => {
    t = await startTestApp({ engine });
    token = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  describe('GET /v1/assets/:asset_id', () => {
    it('answers an active asset with 200, the full record, status active and null decommission fields', async () => {
      const res = await getAsset(t, 'TIE-0001', token).expect(200);
      assert.deepEqual(res.body, {
        status: 'success',
        data: {
          asset_id: 'TIE-0001',
          asset_type: 'vehicle',
          former_pilot: 'TK-421',
          status: 'active',
          decommission_reason: null,
          decommissioned_at: null,
          authorized_by: null,
        },
      });
    });

    it('answers a decommissioned asset with its reason, time and authoriser', async () => {
      const res = await getAsset(t, 'OLD-0001', token).expect(200);
      assert.deepEqual(res.body, { status: 'success', data: DECOMMISSIONED_ASSET });
    });

    it('shows an asset decommissioned through DELETE with the request\'s reason and authoriser', async () => {
      const deleted = await decommission(t, 'EQP-0001', token).expect(200);
      const res = await getAsset(t, 'EQP-0001', token).expect(200);
      assert.deepEqual(Object.keys(res.body.data).sort(), ASSET_KEYS);
      assert.equal(res.body.data.status, 'decommissioned');
      assert.equal(res.body.data.decommission_reason, DECOMMISSION_BODY.reason);
      assert.equal(res.body.data.authorized_by, DECOMMISSION_BODY.authorized_by);
      assert.equal(res.body.data.decommissioned_at, deleted.body.data.decommissioned_at);
      assert.match(res.body.data.decommissioned_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('answers an unknown asset with 404 ASSET_NOT_FOUND', async () => {
      expectErrorBody(await getAsset(t, 'XYZ-9999', token), 404, 'ASSET_NOT_FOUND');
    });

    it('refuses a malformed asset id with 400 VALIDATION_ERROR naming asset_id', async () => {
      for (const id of ['tie-1', 'tie-0001', 'TIE-001', 'TIEX-0001', 'TIE_0001']) {
        expectErrorBody(await getAsset(t, id, token), 400, 'VALIDATION_ERROR', 'asset_id');
      }
    });
  });

  describe('GET /v1/assets', () => {
    it('answers with 200 and the envelope {status, data:{assets, total_count, page, per_page}}, ordered by asset_id', async () => {
      const res = await list('');
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'status']);
      assert.equal(res.body.status, 'success');
      assert.deepEqual(Object.keys(res.body.data).sort(), ['assets', 'page', 'per_page', 'total_count']);
      assert.equal(res.body.data.total_count, ALL_IDS.length);
      assert.equal(res.body.data.page, 1);
      assert.equal(res.body.data.per_page, 10);
      assert.deepEqual(assetIds(res), ALL_IDS);
      for (const asset of res.body.data.assets) {
        assert.deepEqual(Object.keys(asset).sort(), ASSET_KEYS);
      }
    });

    it('defaults to a page of 10 assets, with total_count counting every asset', async () => {
      const ids = Array.from({ length: 12 }, (_, i) => `LST-${String(i).padStart(4, '0')}`);
      await t.db
        .insertInto('assets')
        .values(ids.map((asset_id) => ({ asset_id, asset_type: 'vehicle', former_pilot: 'TK-1' })))
        .execute();
      try {
        const res = await list('');
        assert.equal(res.body.data.assets.length, 10);
        assert.equal(res.body.data.per_page, 10);
        assert.equal(res.body.data.total_count, ALL_IDS.length + ids.length);
        const everyId = [...ALL_IDS, ...ids].sort();
        assert.deepEqual(assetIds(res), everyId.slice(0, 10));
        const second = await list('page=2');
        assert.deepEqual(assetIds(second), everyId.slice(10, 20));
      } finally {
        await t.db.deleteFrom('assets').where('asset_id', 'in', ids).execute();
      }
    });

    it('filters by status active and decommissioned', async () => {
      const rows = await t.db.selectFrom('assets').select(['asset_id', 'status']).orderBy('asset_id').execute();
      for (const status of ['active', 'decommissioned']) {
        const res = await list(`status=${status}`);
        const expected = rows.filter((row) => row.status === status).map((row) => row.asset_id);
        assert.ok(expected.length > 0, status);
        assert.deepEqual(assetIds(res), expected, status);
        assert.ok(assets(res).every((a) => a.status === status), status);
        assert.equal(res.body.data.total_count, expected.length, status);
      }
    });

    it('refuses an unknown status with 400 VALIDATION_ERROR naming status', async () => {
      for (const status of ['retired', 'ACTIVE', '']) {
        await rejects(`status=${status}`, 'status');
      }
    });

    it('pages with limit and page, reporting the effective limit as per_page', async () => {
      const pages: string[][] = [];
      for (const page of [1, 2, 3]) {
        const res = await list(`limit=2&page=${page}`);
        assert.equal(res.body.data.page, page);
        assert.equal(res.body.data.per_page, 2);
        assert.equal(res.body.data.total_count, ALL_IDS.length);
        pages.push(assetIds(res));
      }
      assert.deepEqual(pages, [ALL_IDS.slice(0, 2), ALL_IDS.slice(2, 4), ALL_IDS.slice(4, 6)]);
      const hundred = await list('limit=100');
      assert.equal(hundred.body.data.per_page, 100);
      assert.equal(hundred.body.data.assets.length, ALL_IDS.length);
    });

    it('combines the status filter with limit and page', async () => {
      const res = await list('status=active&limit=1&page=2');
      const active = assetIds(await list('status=active'));
      assert.deepEqual(assetIds(res), [active[1]]);
      assert.equal(res.body.data.total_count, active.length);
    });

    it('answers a page past the end with 200, an empty list and the full total_count', async () => {
      const res = await list('page=2');
      assert.deepEqual(res.body.data, { assets: [], total_count: ALL_IDS.length, page: 2, per_page: 10 });
    });

    itRefusesInvalidPaging(rejects);

    it('refuses an unknown query parameter with 400 naming it', async () => {
      await rejects('asset_type=vehicle', 'asset_type');
    });
  });
});
