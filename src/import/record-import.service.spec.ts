import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ImportRejectedError } from './record-import.service';
import { asset, decommissioned, importTestbed, vessel } from '../../test/support/import-records';

describe('RecordImportService', () => {
  const bed = importTestbed();
  const { assetRows, vesselRows } = bed;

  describe('import', () => {
    it('imports assets and vessels and returns how many of each', async () => {
      const summary = await bed.sut.import({
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
      assert.deepEqual(await bed.sut.import({ vessels: [vessel('ISD-001')] }), { recordsRead: 1, assets: none, vessels: one });
      assert.deepEqual(await bed.sut.import({ assets: [asset('TIE-0001')] }), { recordsRead: 1, assets: one, vessels: none });
      assert.deepEqual(await bed.sut.import({}), { recordsRead: 0, assets: none, vessels: none });
      assert.equal((await assetRows()).length, 1);
      assert.equal((await vesselRows()).length, 1);
    });

    it('stores decommissioned_at as ISO 8601 UTC', async () => {
      await bed.sut.import({ assets: [decommissioned('OLD-0001', { decommissioned_at: '2026-01-02T05:04:05+02:00' })] });

      assert.equal((await assetRows())[0].decommissioned_at, '2026-01-02T03:04:05.000Z');
    });

    it('reads a null decommission detail of an active asset as absent', async () => {
      await bed.sut.import({ assets: [asset('TIE-0001', { status: 'active', decommission_reason: null, decommissioned_at: null, authorized_by: null })] });

      assert.equal((await assetRows())[0].status, 'active');
    });

    it('upserts by id: a second import updates the records without duplicating them', async () => {
      await bed.sut.import({ assets: [asset('TIE-0001'), asset('TIE-0002')], vessels: [vessel('ISD-001'), vessel('ISD-002')] });

      const summary = await bed.sut.import({
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

    it('stores a decommissioned_at without a UTC offset the same whatever the server time zone, or refuses it', async () => {
      const file = { assets: [decommissioned('OLD-0001', { decommissioned_at: '2026-01-02T03:04:05' })] };
      const importIn = async (timeZone: string) => {
        const original = process.env.TZ;
        process.env.TZ = timeZone;
        try {
          await bed.sut.import(file);
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

      await bed.sut.import({ assets: [asset('TIE-0001')], vessels }, (recordsRead) => reports.push(recordsRead));

      assert.deepEqual(reports, [1_000, 2_000]);
      assert.equal((await vesselRows()).length, 2_500);
    });

    it('lists at most 50 problems and counts the rest', async () => {
      const vessels = Array.from({ length: 60 }, (_, index) => vessel(`SD-${index}`, { crew: -1 }));

      await assert.rejects(bed.sut.import({ vessels }), (error: unknown) => {
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
      assert.equal(await bed.sut.isEmpty(), true);
    });

    it('is false once there are vessels', async () => {
      await bed.sut.import({ vessels: [vessel('ISD-001')] });

      assert.equal(await bed.sut.isEmpty(), false);
    });

    it('is false once there are assets', async () => {
      await bed.sut.import({ assets: [asset('TIE-0001')] });

      assert.equal(await bed.sut.isEmpty(), false);
    });
  });
});
