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

  it('answers a clearance-0 token with 200 and the envelope {status, data:{vessels, total_count, page, per_page, next_cursor}}', async () => {
    const res = await list('');
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'status']);
    assert.equal(res.body.status, 'success');
    assert.deepEqual(Object.keys(res.body.data).sort(), ['next_cursor', 'page', 'per_page', 'total_count', 'vessels']);
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
    assert.deepEqual(pageOf(await list('')), { vessels: ALL_IDS.slice(0, 10), total_count: VESSEL_COUNT, page: 1, per_page: 10, next_cursor: ALL_IDS[9] });
  });

  it('accepts limit 1 and limit 100, and reports the effective limit as per_page', async () => {
    assert.deepEqual(pageOf(await list('limit=1')), { vessels: [ALL_IDS[0]], total_count: VESSEL_COUNT, page: 1, per_page: 1, next_cursor: ALL_IDS[0] });

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
      next_cursor: null,
    });
  });

  it('answers a page past the end with 200, an empty list and the full total_count', async () => {
    const res = await list('page=3');
    assert.deepEqual(res.body.data, { vessels: [], total_count: VESSEL_COUNT, page: 3, per_page: 10, next_cursor: null });
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
      next_cursor: null,
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

  /** Follows next_cursor from the first page to the end; returns every page's data. */
  async function walkByCursor(query: string) {
    const pages = [(await list(query)).body.data];
    while (pages[pages.length - 1].next_cursor !== null) {
      pages.push((await list(`${query}&after=${pages[pages.length - 1].next_cursor}`)).body.data);
    }
    return pages;
  }

  it('walks the whole fleet by cursor in the order and pages of the page walk, with the exact total_count on every page', async () => {
    for (const limit of [1, 3, 7, 20]) {
      const pages = await walkByCursor(`limit=${limit}`);
      const byPage = [];
      for (let page = 1; byPage.length < pages.length; page++) {
        byPage.push(vesselIds(await list(`limit=${limit}&page=${page}`)));
      }
      assert.deepEqual(pages.map((page) => page.vessels.map((vessel: VesselRow) => vessel.id)), byPage, `limit ${limit}`);
      assert.deepEqual(byPage.flat(), ALL_IDS, `limit ${limit}`);
      assert.ok(pages.every((page) => page.total_count === VESSEL_COUNT && page.per_page === limit));
      assert.ok(pages.slice(1).every((page) => page.page === null), 'a cursor page has no page number');
    }
  });

  it('continues within the sector when after comes with sector', async () => {
    const pages = await walkByCursor('sector=Outer%20Rim&limit=5');
    assert.deepEqual(pages.map((page) => page.vessels.length), [5, 5, 3]);
    assert.deepEqual(pages.flatMap((page) => page.vessels.map((vessel: VesselRow) => vessel.id)), idsOf('Outer Rim'));
    assert.ok(pages.every((page) => page.total_count === VESSELS_PER_SECTOR['Outer Rim']));
    assert.ok(pages.flatMap((page) => page.vessels).every((vessel: VesselRow) => vessel.sector === 'Outer Rim'));
  });

  it('gives next_cursor null on the last page, and an empty page after the last vessel', async () => {
    const last = await list(`limit=5&after=${ALL_IDS[ALL_IDS.length - 6]}`);
    assert.deepEqual(pageOf(last), { vessels: ALL_IDS.slice(-5), total_count: VESSEL_COUNT, page: null, per_page: 5, next_cursor: null });

    const past = await list(`after=${ALL_IDS[ALL_IDS.length - 1]}`);
    assert.deepEqual(pageOf(past), { vessels: [], total_count: VESSEL_COUNT, page: null, per_page: 10, next_cursor: null });
  });

  it('starts after a cursor that names no vessel, at the next id in order', async () => {
    assert.ok(!ALL_IDS.includes('SD-005'));
    assert.deepEqual(vesselIds(await list('limit=2&after=SD-005')), ALL_IDS.filter((id) => id > 'SD-005').slice(0, 2));
  });

  it('refuses a cursor that is not a vessel id with 400 VALIDATION_ERROR naming after', async () => {
    for (const after of ['', 'sd-001', 'SD-', 'SD-1.5', 'SD-0000000001', 'SD-001%27%20OR%201=1', 'SD-001&after=SD-002']) {
      await rejects(`after=${after}`, 'after');
    }
  });

  it('refuses after together with page with 400 VALIDATION_ERROR naming both', async () => {
    for (const query of ['after=SD-001&page=1', 'page=2&after=SD-001&limit=5']) {
      const res = await listFleet(t, query, token);
      expectErrorBody(res, 400, 'VALIDATION_ERROR', 'after');
      assert.match(res.body.message, /\bpage\b/);
    }
  });
});
