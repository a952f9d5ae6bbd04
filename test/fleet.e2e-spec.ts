import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Response } from 'supertest';
import { SECTORS, type VesselRow } from '../src/database';
import { FIXTURE_RECORDS, VESSEL_COUNT, VESSELS_PER_SECTOR } from './support/fixtures';
import { describeEachDatabase } from './support/databases';
import { expectErrorBody, itRefusesInvalidPaging, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const VESSEL_KEYS = ['class', 'commander', 'crew', 'id', 'length', 'name', 'sector', 'status'];
const ALL_IDS = FIXTURE_RECORDS.vessels.map((v) => v.id).sort();
const idsOf = (sector: string) =>
  FIXTURE_RECORDS.vessels
    .filter((v) => v.sector === sector)
    .map((v) => v.id)
    .sort();
const vessels = (res: Response) => res.body.data.vessels as VesselRow[];
const vesselIds = (res: Response) => vessels(res).map((v) => v.id);
const sectorsOf = (res: Response) => vessels(res).map((v) => v.sector);
/** The listing's data with each vessel reduced to its id. */
const pageOf = (res: Response) => ({ ...res.body.data, vessels: vesselIds(res) });

describeEachDatabase('GET /v1/fleet/star-destroyers', (engine) => {
  let t: TestApp;
  let token: string;

  const list = (query: string) => listFleet(t, query, token).expect(200);
  const rejects = async (query: string, field: string) => expectErrorBody(await listFleet(t, query, token), 400, 'VALIDATION_ERROR', field);

  before(async () => {
    t = await startTestApp({ engine });
    token = t.bearer('trooper-0', 0);
  });
  after(() => t.close());

  it('answers a clearance-0 token with 200 and the envelope {status, data:{vessels, total_count, page, per_page}}', async () => {
    const res = await list('');
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'status']);
    assert.equal(res.body.status, 'success');
    assert.deepEqual(Object.keys(res.body.data).sort(), ['page', 'per_page', 'total_count', 'vessels']);
    assert.ok(Array.isArray(res.body.data.vessels));
  });

  it('returns each vessel with exactly id, name, class, length, crew (integer), commander, sector, status', async () => {
    const res = await list('limit=100');
    assert.equal(res.body.data.vessels.length, VESSEL_COUNT);
    for (const vessel of res.body.data.vessels) {
      assert.deepEqual(Object.keys(vessel).sort(), VESSEL_KEYS);
      assert.ok(Number.isInteger(vessel.crew), `crew is an integer: ${vessel.crew}`);
    }
    const first = FIXTURE_RECORDS.vessels.find((v) => v.id === 'SD-000');
    assert.deepEqual(res.body.data.vessels[0], first);
  });

  it('orders vessels by id ascending', async () => {
    const res = await list('limit=100');
    assert.deepEqual(vesselIds(res), ALL_IDS);
  });

  it('defaults to page 1 of 10 vessels, with total_count counting every vessel', async () => {
    assert.deepEqual(pageOf(await list('')), { vessels: ALL_IDS.slice(0, 10), total_count: VESSEL_COUNT, page: 1, per_page: 10 });
  });

  it('accepts limit 1 and limit 100, and reports the effective limit as per_page', async () => {
    assert.deepEqual(pageOf(await list('limit=1')), { vessels: [ALL_IDS[0]], total_count: VESSEL_COUNT, page: 1, per_page: 1 });

    const hundred = await list('limit=100');
    assert.equal(hundred.body.data.vessels.length, VESSEL_COUNT);
    assert.equal(hundred.body.data.per_page, 100);
    assert.equal(hundred.body.data.total_count, VESSEL_COUNT);
  });

  it('returns the requested page, and the second page continues the first', async () => {
    assert.deepEqual(pageOf(await list('limit=10&page=2')), {
      vessels: ALL_IDS.slice(10, 20),
      total_count: VESSEL_COUNT,
      page: 2,
      per_page: 10,
    });
  });

  it('answers a page past the end with 200, an empty list and the full total_count', async () => {
    const res = await list('page=3');
    assert.deepEqual(res.body.data, { vessels: [], total_count: VESSEL_COUNT, page: 3, per_page: 10 });
  });

  it('filters by each sector: only that sector\'s vessels, in id order, with the sector\'s total_count', async () => {
    for (const sector of SECTORS) {
      const res = await list(`sector=${encodeURIComponent(sector)}`);
      assert.equal(res.body.data.total_count, VESSELS_PER_SECTOR[sector], sector);
      assert.ok(sectorsOf(res).every((s) => s === sector), sector);
      assert.deepEqual(vesselIds(res), idsOf(sector).slice(0, 10), sector);
    }
  });

  it('pages through Outer Rim with limit 5 as 5, 5 and 3 vessels, without overlap and in id order', async () => {
    const pages: string[][] = [];
    for (const page of [1, 2, 3, 4]) {
      const res = await list(`sector=Outer%20Rim&limit=5&page=${page}`);
      assert.equal(res.body.data.total_count, VESSELS_PER_SECTOR['Outer Rim']);
      assert.equal(res.body.data.page, page);
      assert.equal(res.body.data.per_page, 5);
      assert.ok(sectorsOf(res).every((s) => s === 'Outer Rim'));
      pages.push(vesselIds(res));
    }
    assert.deepEqual(pages.map((ids) => ids.length), [5, 5, 3, 0]);
    const seen = pages.flat();
    assert.equal(new Set(seen).size, seen.length, 'no vessel appears on two pages');
    assert.deepEqual(seen, idsOf('Outer Rim'));
  });

  it('combines sector, limit and page', async () => {
    const res = await list('sector=Mid%20Rim&limit=3&page=2');
    assert.deepEqual(res.body.data, {
      vessels: FIXTURE_RECORDS.vessels.filter((v) => v.id === idsOf('Mid Rim')[3]),
      total_count: VESSELS_PER_SECTOR['Mid Rim'],
      page: 2,
      per_page: 3,
    });
  });

  it('refuses an unknown sector with 400 VALIDATION_ERROR naming sector', async () => {
    for (const sector of ['Unknown%20Regions', 'outer%20rim', 'Outer+Rim+', '']) {
      await rejects(`sector=${sector}`, 'sector');
    }
  });

  it('refuses an unknown query parameter with 400 VALIDATION_ERROR naming it', async () => {
    await rejects('color=red', 'color');
    await rejects('sector=Outer%20Rim&per_page=5', 'per_page');
  });

  itRefusesInvalidPaging(rejects);
});
