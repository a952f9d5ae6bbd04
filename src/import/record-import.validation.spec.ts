import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ImportRejectedError } from './record-import.service';
import { asset, decommissioned, importTestbed, names, rejectedWith, vessel } from '../../test/support/import-records';

describe('RecordImportService refuses bad records', () => {
  const bed = importTestbed();
  const { assetRows, vesselRows } = bed;

    it('refuses decommission details on an asset that is not decommissioned, rather than dropping them', async () => {
      await assert.rejects(
        bed.sut.import({
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
      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('refuses a bad vessel naming its index and field, and writes nothing, not even the good records', async () => {
      const file = {
        assets: [asset('TIE-0001')],
        vessels: [vessel('ISD-001'), vessel('ISD-002', { crew: 'many' })],
      };

      await assert.rejects(bed.sut.import(file), rejectedWith(names('vessels[1]', 'crew')));

      assert.deepEqual(await assetRows(), []);
      assert.deepEqual(await vesselRows(), []);
      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('refuses a vessel length over 32 characters, the bound the API documents, and takes one of 32', async () => {
      const longest = `${'9'.repeat(25)} meters`;
      await assert.rejects(bed.sut.import({ vessels: [vessel('ISD-001', { length: `9${longest}` })] }), rejectedWith(names('vessels[0]', 'length')));
      await bed.sut.import({ vessels: [vessel('ISD-001', { length: longest })] });
      assert.equal((await vesselRows())[0].length, longest);
    });

    it('refuses a bad asset id naming its index and field, and writes nothing', async () => {
      await assert.rejects(
        bed.sut.import({ assets: [asset('tie-1')], vessels: [vessel('ISD-001')] }),
        rejectedWith(names('assets[0]', 'asset_id')),
      );

      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('leaves existing records untouched when a later import is refused', async () => {
      await bed.sut.import({ vessels: [vessel('ISD-001')] });

      await assert.rejects(
        bed.sut.import({ vessels: [vessel('ISD-001', { name: 'Renamed' }), vessel('ISD-002', { sector: 'Deep Core' })] }),
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
        bed.sut.import(file),
        rejectedWith(
          names('assets[0]', 'former_pilot'),
          names('assets[2]', 'status'),
          names('vessels[0]', 'length'),
          names('vessels[1]', 'crew'),
        ),
      );
      assert.equal(await bed.sut.isEmpty(), true);
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
        bed.sut.import({ assets: [withoutId], vessels }),
        rejectedWith(/^assets\[0\]\.asset_id is required$/, ...fields.map((field, index) => new RegExp(`^vessels\\[${index}\\]\\.${field} is required$`))),
      );
    });

    it('refuses duplicate ids within the file, pointing at the first occurrence', async () => {
      const file = {
        assets: [asset('TIE-0001'), asset('TIE-0002'), asset('TIE-0001', { former_pilot: 'TK-999' })],
        vessels: [vessel('ISD-001'), vessel('ISD-001')],
      };

      await assert.rejects(
        bed.sut.import(file),
        rejectedWith(/^assets\[2\]\.asset_id TIE-0001 repeats assets\[0\]$/, /^vessels\[1\]\.id ISD-001 repeats vessels\[0\]$/),
      );
      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('refuses unknown top-level keys', async () => {
      await assert.rejects(
        bed.sut.import({ assets: [asset('TIE-0001')], ships: [] }),
        rejectedWith(/^ships: unknown list \(expected assets and vessels\)$/),
      );
      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('refuses unknown record fields', async () => {
      await assert.rejects(
        bed.sut.import({ assets: [asset('TIE-0001', { colour: 'grey' })], vessels: [vessel('ISD-001', { speed: 'fast' })] }),
        rejectedWith(/^assets\[0\](\.|: )colour is not an allowed field$/, /^vessels\[0\](\.|: )speed is not an allowed field$/),
      );
      assert.equal(await bed.sut.isEmpty(), true);
    });

    for (const file of [null, [], 'assets', 42]) {
      it(`refuses a file that is not an object: ${JSON.stringify(file)}`, async () => {
        await assert.rejects(bed.sut.import(file), rejectedWith(/must hold an object/));
      });
    }

    it('refuses a list that is not an array and a record that is not an object', async () => {
      await assert.rejects(
        bed.sut.import({ assets: { 'TIE-0001': asset('TIE-0001') }, vessels: [vessel('ISD-001'), 'ISD-002', null] }),
        rejectedWith(/^assets: must be an array$/, /^vessels\[1\]: must be an object$/, /^vessels\[2\]: must be an object$/),
      );
      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('requires reason, decommissioned_at and authorized_by of a decommissioned asset', async () => {
      await assert.rejects(
        bed.sut.import({ assets: [asset('OLD-0001', { status: 'decommissioned' })] }),
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
      assert.equal(await bed.sut.isEmpty(), true);
    });

    for (const [field, value] of [
      ['decommission_reason', '  '],
      ['authorized_by', undefined],
      ['decommissioned_at', 'yesterday'],
      ['decommissioned_at', '2026-02-30T00:00:00Z'],
    ] as const) {
      it(`refuses a decommissioned asset with ${field} ${JSON.stringify(value)}`, async () => {
        await assert.rejects(
          bed.sut.import({ assets: [decommissioned('OLD-0001', { [field]: value })] }),
          rejectedWith(names('assets[0]', field)),
        );
      });
    }

    // ISO 8601 week and ordinal dates that Date cannot parse: toAssetRow used to throw RangeError "Invalid time value".
    it('refuses a decommissioned_at that Date cannot read as a rejected record, not a RangeError', async () => {
      for (const decommissionedAt of ['2026-W01-1', '2026-123']) {
        await assert.rejects(
          bed.sut.import({ assets: [decommissioned('OLD-0001', { decommissioned_at: decommissionedAt })] }),
          rejectedWith(names('assets[0]', 'decommissioned_at')),
        );
      }
    });

    // A date-time without an offset used to be read in the time zone of the importing process.
});
