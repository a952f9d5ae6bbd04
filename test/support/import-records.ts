import assert from 'node:assert/strict';
import { afterEach, beforeEach } from 'node:test';
import type { Kysely } from 'kysely';
import { ASSET_COLUMNS, AssetsRepository } from '../../src/assets';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../../src/database';
import { FleetRepository } from '../../src/fleet';
import { ImportRejectedError, RecordImportService } from '../../src/import/record-import.service';

/** Records as an import file holds them, for the import service's specs. */
export const vessel = (id: string, overrides: Record<string, unknown> = {}) => ({
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

export const asset = (assetId: string, overrides: Record<string, unknown> = {}) => ({
  asset_id: assetId,
  asset_type: 'vehicle',
  former_pilot: 'TK-421',
  ...overrides,
});

export const decommissioned = (assetId: string, overrides: Record<string, unknown> = {}) =>
  asset(assetId, {
    status: 'decommissioned',
    decommission_reason: 'Lost at Hoth',
    decommissioned_at: '2026-01-02T03:04:05.000Z',
    authorized_by: 'General Veers',
    ...overrides,
  });

/** Asserts an ImportRejectedError whose problems match the given patterns, one for one, in order. */
export function rejectedWith(...expected: RegExp[]) {
  return (error: unknown) => {
    assert.ok(error instanceof ImportRejectedError, `expected ImportRejectedError, got ${String(error)}`);
    assert.match(error.message, /^Import refused, nothing was written:/);
    assert.equal(error.problems.length, expected.length, `problems: ${JSON.stringify(error.problems)}`);
    expected.forEach((pattern, index) => assert.match(error.problems[index], pattern));
    return true;
  };
}

/** "vessels[1]: crew ..." or "vessels[1].crew ...": the record's index and the field. */
export const names = (record: string, field: string) => new RegExp(`^${record.replace(/[[\]]/g, '\\$&')}(\\.|: )${field}\\b`);

/** A fresh in-memory database and import service for each test of the describe block that calls it. */
export function importTestbed() {
  let db: Kysely<DB>;
  let service: RecordImportService;
  beforeEach(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    service = new RecordImportService(new AssetsRepository(db), new FleetRepository(db), new TransactionRunner(db));
  });
  afterEach(() => db.destroy());
  return {
    get sut() {
      return service;
    },
    assetRows: () => db.selectFrom('assets').select(ASSET_COLUMNS).orderBy('asset_id').execute(),
    vesselRows: () => db.selectFrom('vessels').selectAll().orderBy('id').execute(),
  };
}
