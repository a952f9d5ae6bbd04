import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { plainToInstance } from 'class-transformer';
import { Kysely } from 'kysely';
import { createDatabase, type DB, migrateToLatest, SECTORS, type VesselRow } from '../database';
import { ListVesselsQueryDto } from './dto/vessel.dto';
import { FleetRepository } from './fleet.repository';
import { BODY_SHAPE, FleetService } from './fleet.service';

/** Vessels per sector: Outer Rim has more than one default page. */
const PER_SECTOR = { 'Outer Rim': 13, 'Mid Rim': 4, 'Inner Rim': 2, 'Core Worlds': 1 } as const;
const TOTAL = 20;

// Ids interleave the sectors, so ordering by id shows in a filtered list too.
const VESSELS: VesselRow[] = SECTORS.flatMap((sector, sectorIndex) =>
  Array.from({ length: PER_SECTOR[sector] }, (_, index) => ({
    id: `SD-${String(index * 10 + sectorIndex).padStart(3, '0')}`,
    name: `${sector} Vessel ${index + 1}`,
    class: 'Imperial II-class',
    length: '1600 meters',
    crew: 37000 + index,
    commander: `Captain ${index + 1}`,
    sector,
    status: 'operational',
  })),
);
const SORTED_IDS = VESSELS.map((vessel) => vessel.id).sort();

const listQuery = (query: Record<string, unknown> = {}) => plainToInstance(ListVesselsQueryDto, query);
const ids = (page: { vessels: { id: string }[] }) => page.vessels.map((vessel) => vessel.id);

/** Asserts that `value` has exactly `shape`: the same keys in the same order, each value of a type the shape names. */
function assertShape(value: unknown, shape: unknown, path: string): void {
  if (typeof shape === 'string') {
    const type = value === null ? 'null' : typeof value;
    assert.ok(shape.split(' | ').includes(type), `${path} is ${type}; BODY_SHAPE says ${shape}`);
  } else if (Array.isArray(shape)) {
    assert.ok(Array.isArray(value), `${path} is not an array`);
    value.forEach((item, index) => assertShape(item, shape[0], `${path}[${index}]`));
  } else {
    assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${path} is not an object`);
    const fields = shape as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), Object.keys(fields), `${path}'s keys are not those of BODY_SHAPE`);
    for (const key of Object.keys(fields)) {
      assertShape((value as Record<string, unknown>)[key], fields[key], `${path}.${key}`);
    }
  }
}

describe('FleetService', () => {
  let db: Kysely<DB>;
  let sut: FleetService;
  const listVessels = async (query: Record<string, unknown> = {}) => JSON.parse((await (await sut.openListing(listQuery(query))).body()).toString()).data;

  before(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    // Inserted in reverse so that the order of the result cannot come from the insertion order.
    await db.insertInto('vessels').values([...VESSELS].reverse()).execute();
    sut = new FleetService(new FleetRepository(db));
  });
  after(() => db.destroy());

  describe('openListing', () => {
    it('returns the first 10 vessels ordered by id by default, with the total count', async () => {
      const page = await listVessels();

      assert.deepEqual(ids(page), SORTED_IDS.slice(0, 10));
      assert.equal(page.total_count, TOTAL);
      assert.equal(page.page, 1);
      assert.equal(page.per_page, 10);
    });

    it('returns whole vessel records', async () => {
      const page = await listVessels({ limit: '1' });

      assert.deepEqual(page.vessels, [
        {
          id: 'SD-000',
          name: 'Outer Rim Vessel 1',
          class: 'Imperial II-class',
          length: '1600 meters',
          crew: 37000,
          commander: 'Captain 1',
          sector: 'Outer Rim',
          status: 'operational',
        },
      ]);
    });

    it('pages by limit and page', async () => {
      const page = await listVessels({ limit: '7', page: '2' });

      assert.deepEqual(ids(page), SORTED_IDS.slice(7, 14));
      assert.deepEqual([page.total_count, page.page, page.per_page], [TOTAL, 2, 7]);
    });

    it('returns the whole fleet in one page of 100', async () => {
      const page = await listVessels({ limit: 100 });

      assert.deepEqual(ids(page), SORTED_IDS);
    });

    it('returns a short last page', async () => {
      const page = await listVessels({ limit: 8, page: 3 });

      assert.deepEqual(ids(page), SORTED_IDS.slice(16));
    });

    it('returns an empty page past the end, still with the total count', async () => {
      const page = await listVessels({ page: '3' });

      assert.deepEqual(page, { vessels: [], total_count: TOTAL, page: 3, per_page: 10, next_cursor: null });
    });

    for (const sector of SECTORS) {
      it(`filters by sector ${sector}, ordered by id, counting only that sector`, async () => {
        const page = await listVessels({ sector, limit: 100 });

        const expected = VESSELS.filter((vessel) => vessel.sector === sector)
          .map((vessel) => vessel.id)
          .sort();
        assert.deepEqual(ids(page), expected);
        assert.equal(page.total_count, PER_SECTOR[sector]);
      });
    }

    // BODY_SHAPE is part of the ETag: a body of another shape under the same ETag would be a stale 304.
    it('builds every kind of page in the shape BODY_SHAPE records', async () => {
      const queries = [{}, { limit: '100' }, { sector: 'Core Worlds' }, { after: SORTED_IDS[3], limit: '2' }, { after: SORTED_IDS[TOTAL - 1] }, { page: '9' }];
      for (const query of queries) {
        assertShape(JSON.parse((await (await sut.openListing(listQuery(query))).body()).toString()), BODY_SHAPE, `the body for ${JSON.stringify(query)}`);
      }
    });

    it('pages within a sector', async () => {
      const page = await listVessels({ sector: 'Outer Rim', page: 2 });

      assert.deepEqual(ids(page), ['SD-100', 'SD-110', 'SD-120']);
      assert.deepEqual([page.total_count, page.page, page.per_page], [13, 2, 10]);
    });
  });
});
