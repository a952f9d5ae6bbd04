import 'reflect-metadata';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Kysely } from 'kysely';
import { AssetsRepository } from '../assets';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../database';
import { FleetRepository } from '../fleet';
import { ImportRejectedError, RecordImportService } from './record-import.service';

const vessel = (id: string, overrides: Record<string, unknown> = {}) => ({
  id,
  name: `Vessel ${id}`,
  class: 'Imperial II-class',
  length: '1600 meters',
  crew: 37000,
  commander: 'Captain Piett',
  sector: 'Outer Rim',
  status: 'operational',
  ...overrides,
});

const asset = (assetId: string, overrides: Record<string, unknown> = {}) => ({
  asset_id: assetId,
  asset_type: 'vehicle',
  former_pilot: 'TK-421',
  ...overrides,
});

const decommissioned = (assetId: string, overrides: Record<string, unknown> = {}) =>
  asset(assetId, {
    status: 'decommissioned',
    decommission_reason: 'Lost at Hoth',
    decommissioned_at: '2026-01-02T03:04:05.000Z',
    authorized_by: 'General Veers',
    ...overrides,
  });

/** Asserts an ImportRejectedError whose problems match the given patterns, one for one, in order. */
function rejectedWith(...expected: RegExp[]) {
  return (error: unknown) => {
    assert.ok(error instanceof ImportRejectedError, `expected ImportRejectedError, got ${String(error)}`);
    assert.match(error.message, /^Import refused, nothing was written:/);
    assert.equal(error.problems.length, expected.length, `problems: ${JSON.stringify(error.problems)}`);
    expected.forEach((pattern, index) => assert.match(error.problems[index], pattern));
    return true;
  };
}

/** "vessels[1]: crew ..." or "vessels[1].crew ...": the record's index and the field. */
const names = (record: string, field: string) => new RegExp(`^${record.replace(/[[\]]/g, '\\$&')}(\\.|: )${field}\\b`);

describe('RecordImportService', () => {
  let db: Kysely<DB>;
  let sut: RecordImportService;

  const assetRows = () => db.selectFrom('assets').selectAll().orderBy('asset_id').execute();
  const vesselRows = () => db.selectFrom('vessels').selectAll().orderBy('id').execute();

  beforeEach(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    sut = new RecordImportService(new AssetsRepository(db), new FleetRepository(db), new TransactionRunner(db));
  });
  afterEach(() => db.destroy());

  describe('import', () => {
    it('imports assets and vessels and returns how many of each', async () => {
      const summary = await sut.import({
        assets: [asset('TIE-0001'), decommissioned('OLD-0001')],
        vessels: [vessel('ISD-001'), vessel('ISD-002', { sector: 'Core Worlds' }), vessel('SSD-1')],
      });

      assert.deepEqual(summary, { recordsRead: 5, assets: { inserted: 2, updated: 0 }, vessels: { inserted: 3, updated: 0 } });
      assert.deepEqual(await assetRows(), [
        {
          asset_id: 'OLD-0001',
          asset_type: 'vehicle',
          former_pilot: 'TK-421',
          status: 'decommissioned',
          decommission_reason: 'Lost at Hoth',
          decommissioned_at: '2026-01-02T03:04:05.000Z',
          authorized_by: 'General Veers',
        },
        {
          asset_id: 'TIE-0001',
          asset_type: 'vehicle',
          former_pilot: 'TK-421',
          status: 'active',
          decommission_reason: null,
          decommissioned_at: null,
          authorized_by: null,
        },
      ]);
      assert.deepEqual(await vesselRows(), [vessel('ISD-001'), vessel('ISD-002', { sector: 'Core Worlds' }), vessel('SSD-1')]);
    });

    it('accepts a file with only one of the two lists, or neither', async () => {
      const none = { inserted: 0, updated: 0 };
      const one = { inserted: 1, updated: 0 };
      assert.deepEqual(await sut.import({ vessels: [vessel('ISD-001')] }), { recordsRead: 1, assets: none, vessels: one });
      assert.deepEqual(await sut.import({ assets: [asset('TIE-0001')] }), { recordsRead: 1, assets: one, vessels: none });
      assert.deepEqual(await sut.import({}), { recordsRead: 0, assets: none, vessels: none });
      assert.equal((await assetRows()).length, 1);
      assert.equal((await vesselRows()).length, 1);
    });

    it('stores decommissioned_at as ISO 8601 UTC', async () => {
      await sut.import({ assets: [decommissioned('OLD-0001', { decommissioned_at: '2026-01-02T05:04:05+02:00' })] });

      assert.equal((await assetRows())[0].decommissioned_at, '2026-01-02T03:04:05.000Z');
    });

    it('refuses decommission details on an asset that is not decommissioned, rather than dropping them', async () => {
      await assert.rejects(
        sut.import({
          assets: [
            asset('TIE-0001', { decommissioned_at: '2026-01-02T03:04:05Z' }),
            asset('TIE-0002', { status: 'active', decommission_reason: 'Lost at Hoth' }),
            asset('TIE-0003', { authorized_by: 'General Veers', decommissioned_at: 'yesterday' }),
          ],
        }),
        rejectedWith(
          /^assets\[0\]\.decommissioned_at is only allowed with status "decommissioned"$/,
          /^assets\[1\]\.decommission_reason is only allowed with status "decommissioned"$/,
          /^assets\[2\]\.decommissioned_at is only allowed with status "decommissioned"; authorized_by is only allowed/,
        ),
      );
      assert.equal(await sut.isEmpty(), true);
    });

    it('reads a null decommission detail of an active asset as absent', async () => {
      await sut.import({ assets: [asset('TIE-0001', { status: 'active', decommission_reason: null, decommissioned_at: null, authorized_by: null })] });

      assert.equal((await assetRows())[0].status, 'active');
    });

    it('upserts by id: a second import updates the records without duplicating them', async () => {
      await sut.import({ assets: [asset('TIE-0001'), asset('TIE-0002')], vessels: [vessel('ISD-001'), vessel('ISD-002')] });

      const summary = await sut.import({
        assets: [asset('TIE-0001', { former_pilot: 'TK-999' }), asset('TIE-0003')],
        vessels: [vessel('ISD-001', { name: 'Executor', crew: 280000 })],
      });

      assert.deepEqual(summary, { recordsRead: 3, assets: { inserted: 1, updated: 1 }, vessels: { inserted: 0, updated: 1 } });
      assert.deepEqual(
        (await assetRows()).map((row) => [row.asset_id, row.former_pilot]),
        [
          ['TIE-0001', 'TK-999'],
          ['TIE-0002', 'TK-421'],
          ['TIE-0003', 'TK-421'],
        ],
      );
      assert.deepEqual(await vesselRows(), [vessel('ISD-001', { name: 'Executor', crew: 280000 }), vessel('ISD-002')]);
    });

    it('refuses a bad vessel naming its index and field, and writes nothing, not even the good records', async () => {
      const file = {
        assets: [asset('TIE-0001')],
        vessels: [vessel('ISD-001'), vessel('ISD-002', { crew: 'many' })],
      };

      await assert.rejects(sut.import(file), rejectedWith(names('vessels[1]', 'crew')));

      assert.deepEqual(await assetRows(), []);
      assert.deepEqual(await vesselRows(), []);
      assert.equal(await sut.isEmpty(), true);
    });

    it('refuses a vessel length over 32 characters, the bound the API documents, and takes one of 32', async () => {
      const longest = `${'9'.repeat(25)} meters`;
      await assert.rejects(sut.import({ vessels: [vessel('ISD-001', { length: `9${longest}` })] }), rejectedWith(names('vessels[0]', 'length')));
      await sut.import({ vessels: [vessel('ISD-001', { length: longest })] });
      assert.equal((await vesselRows())[0].length, longest);
    });

    it('refuses a bad asset id naming its index and field, and writes nothing', async () => {
      await assert.rejects(
        sut.import({ assets: [asset('tie-1')], vessels: [vessel('ISD-001')] }),
        rejectedWith(names('assets[0]', 'asset_id')),
      );

      assert.equal(await sut.isEmpty(), true);
    });

    it('leaves existing records untouched when a later import is refused', async () => {
      await sut.import({ vessels: [vessel('ISD-001')] });

      await assert.rejects(
        sut.import({ vessels: [vessel('ISD-001', { name: 'Renamed' }), vessel('ISD-002', { sector: 'Deep Core' })] }),
        rejectedWith(names('vessels[1]', 'sector')),
      );

      assert.deepEqual(await vesselRows(), [vessel('ISD-001')]);
    });

    it('reports every bad record of the file at once', async () => {
      const file = {
        assets: [asset('TIE-0001', { former_pilot: '   ' }), asset('TIE-0002'), asset('TIE-0003', { status: 'lost' })],
        vessels: [vessel('ISD-001', { length: '1600' }), vessel('ISD-002', { crew: -1 })],
      };

      await assert.rejects(
        sut.import(file),
        rejectedWith(
          names('assets[0]', 'former_pilot'),
          names('assets[2]', 'status'),
          names('vessels[0]', 'length'),
          names('vessels[1]', 'crew'),
        ),
      );
      assert.equal(await sut.isEmpty(), true);
    });

    it('says "is required" for a missing field of any type, not a type error', async () => {
      const fields = ['id', 'name', 'class', 'length', 'crew', 'commander', 'sector', 'status'] as const;
      const vessels = fields.map((field, index) => {
        const record: Record<string, unknown> = vessel(`ISD-00${index}`);
        delete record[field];
        return record;
      });
      const withoutId: Record<string, unknown> = asset('TIE-0001');
      delete withoutId.asset_id;

      await assert.rejects(
        sut.import({ assets: [withoutId], vessels }),
        rejectedWith(/^assets\[0\]\.asset_id is required$/, ...fields.map((field, index) => new RegExp(`^vessels\\[${index}\\]\\.${field} is required$`))),
      );
    });

    it('refuses duplicate ids within the file, pointing at the first occurrence', async () => {
      const file = {
        assets: [asset('TIE-0001'), asset('TIE-0002'), asset('TIE-0001', { former_pilot: 'TK-999' })],
        vessels: [vessel('ISD-001'), vessel('ISD-001')],
      };

      await assert.rejects(
        sut.import(file),
        rejectedWith(/^assets\[2\]\.asset_id TIE-0001 repeats assets\[0\]$/, /^vessels\[1\]\.id ISD-001 repeats vessels\[0\]$/),
      );
      assert.equal(await sut.isEmpty(), true);
    });

    it('refuses unknown top-level keys', async () => {
      await assert.rejects(
        sut.import({ assets: [asset('TIE-0001')], ships: [] }),
        rejectedWith(/^ships: unknown list \(expected assets and vessels\)$/),
      );
      assert.equal(await sut.isEmpty(), true);
    });

    it('refuses unknown record fields', async () => {
      await assert.rejects(
        sut.import({ assets: [asset('TIE-0001', { colour: 'grey' })], vessels: [vessel('ISD-001', { speed: 'fast' })] }),
        rejectedWith(/^assets\[0\](\.|: )colour is not an allowed field$/, /^vessels\[0\](\.|: )speed is not an allowed field$/),
      );
      assert.equal(await sut.isEmpty(), true);
    });

    for (const file of [null, [], 'assets', 42]) {
      it(`refuses a file that is not an object: ${JSON.stringify(file)}`, async () => {
        await assert.rejects(sut.import(file), rejectedWith(/must hold an object/));
      });
    }

    it('refuses a list that is not an array and a record that is not an object', async () => {
      await assert.rejects(
        sut.import({ assets: { 'TIE-0001': asset('TIE-0001') }, vessels: [vessel('ISD-001'), 'ISD-002', null] }),
        rejectedWith(/^assets: must be an array$/, /^vessels\[1\]: must be an object$/, /^vessels\[2\]: must be an object$/),
      );
      assert.equal(await sut.isEmpty(), true);
    });

    it('requires reason, decommissioned_at and authorized_by of a decommissioned asset', async () => {
      await assert.rejects(
        sut.import({ assets: [asset('OLD-0001', { status: 'decommissioned' })] }),
        (error: unknown) => {
          assert.ok(error instanceof ImportRejectedError);
          assert.equal(error.problems.length, 1);
          for (const field of ['decommission_reason', 'decommissioned_at', 'authorized_by']) {
            assert.ok(error.problems[0].includes(field), `names ${field}: ${error.problems[0]}`);
          }
          assert.match(error.problems[0], /^assets\[0\]/);
          return true;
        },
      );
      assert.equal(await sut.isEmpty(), true);
    });

    for (const [field, value] of [
      ['decommission_reason', '  '],
      ['authorized_by', undefined],
      ['decommissioned_at', 'yesterday'],
      ['decommissioned_at', '2026-02-30T00:00:00Z'],
    ] as const) {
      it(`refuses a decommissioned asset with ${field} ${JSON.stringify(value)}`, async () => {
        await assert.rejects(
          sut.import({ assets: [decommissioned('OLD-0001', { [field]: value })] }),
          rejectedWith(names('assets[0]', field)),
        );
      });
    }

    // ISO 8601 week and ordinal dates that Date cannot parse: toAssetRow used to throw RangeError "Invalid time value".
    it('refuses a decommissioned_at that Date cannot read as a rejected record, not a RangeError', async () => {
      for (const decommissionedAt of ['2026-W01-1', '2026-123']) {
        await assert.rejects(
          sut.import({ assets: [decommissioned('OLD-0001', { decommissioned_at: decommissionedAt })] }),
          rejectedWith(names('assets[0]', 'decommissioned_at')),
        );
      }
    });

    // A date-time without an offset used to be read in the time zone of the importing process.
    it('stores a decommissioned_at without a UTC offset the same whatever the server time zone, or refuses it', async () => {
      const file = { assets: [decommissioned('OLD-0001', { decommissioned_at: '2026-01-02T03:04:05' })] };
      const importIn = async (timeZone: string) => {
        const original = process.env.TZ;
        process.env.TZ = timeZone;
        try {
          await sut.import(file);
          return (await assetRows())[0].decommissioned_at;
        } catch (error) {
          return error instanceof ImportRejectedError ? 'refused' : error;
        } finally {
          if (original === undefined) {
            delete process.env.TZ;
          } else {
            process.env.TZ = original;
          }
        }
      };

      assert.equal(await importIn('Asia/Tokyo'), await importIn('America/New_York'));
    });
  });

  describe('progress', () => {
    it('reports the records read every 1,000 records', async () => {
      const vessels = Array.from({ length: 2_500 }, (_, index) => vessel(`SD-${String(index).padStart(5, '0')}`));
      const reports: number[] = [];

      await sut.import({ assets: [asset('TIE-0001')], vessels }, (recordsRead) => reports.push(recordsRead));

      assert.deepEqual(reports, [1_000, 2_000]);
      assert.equal((await vesselRows()).length, 2_500);
    });

    it('lists at most 50 problems and counts the rest', async () => {
      const vessels = Array.from({ length: 60 }, (_, index) => vessel(`SD-${index}`, { crew: -1 }));

      await assert.rejects(sut.import({ vessels }), (error: unknown) => {
        assert.ok(error instanceof ImportRejectedError);
        assert.equal(error.problems.length, 50);
        assert.equal(error.problemCount, 60);
        assert.match(error.message, /\.\.\. and 10 more$/);
        assert.equal(error.message.split('\n').length, 1 + 50 + 1);
        return true;
      });
    });
  });

  describe('isEmpty', () => {
    it('is true for a fresh database', async () => {
      assert.equal(await sut.isEmpty(), true);
    });

    it('is false once there are vessels', async () => {
      await sut.import({ vessels: [vessel('ISD-001')] });

      assert.equal(await sut.isEmpty(), false);
    });

    it('is false once there are assets', async () => {
      await sut.import({ assets: [asset('TIE-0001')] });

      assert.equal(await sut.isEmpty(), false);
    });
  });
});
