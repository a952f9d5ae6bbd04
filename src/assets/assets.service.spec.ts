import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { Kysely, sql } from 'kysely';
import { AuditService, AuditWriteRepository, createAuditLog } from '../audit';
import { loadAppConfig } from '../config';
import { type RequestOrigin, ResourceNotFoundError, ServiceUnavailableError } from '../common';
import { createDatabase, type DB, migrateToLatest, type NewAsset, TransactionRunner } from '../database';
import { Metrics } from '../observability';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { DenialLimiter } from '../rate-limit';
import { AssetAccessDeniedError } from './assets.errors';
import { ASSET_COLUMNS, AssetsRepository } from './assets.repository';
import { AssetsService } from './assets.service';
import { ListAssetsQueryDto } from './dto/asset.dto';
import { DECOMMISSIONED_ASSET } from '../../test/support/fixtures';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BODY = { reason: 'Damaged beyond repair', authorized_by: 'Grand Moff Tarkin' };
const ADMIRAL = { id: 'admiral-7', clearance: 7 };
const originFor = (assetId: string): RequestOrigin => ({
  requestId: `req-${assetId}`,
  ip: '10.0.0.7',
  method: 'DELETE',
  path: `/v1/assets/${assetId}`,
  assetId,
});

const ACTIVE: NewAsset[] = [
  { asset_id: 'TIE-0001', asset_type: 'vehicle', former_pilot: 'TK-421' },
  { asset_id: 'TIE-0002', asset_type: 'vehicle', former_pilot: 'TN-3465' },
  { asset_id: 'TXN-0001', asset_type: 'vehicle', former_pilot: 'TK-1' },
];
const OLD: NewAsset = DECOMMISSIONED_ASSET;

async function openDatabase(assets: NewAsset[]): Promise<Kysely<DB>> {
  const db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
  await migrateToLatest(db);
  // A multi-row insert sends NULL, not the column default, for a key a row leaves out: name the status.
  await db
    .insertInto('assets')
    .values(assets.map((asset) => ({ status: 'active' as const, ...asset })))
    .execute();
  return db;
}

function createService(db: Kysely<DB>): AssetsService {
  // The service writes only allowed events, which no limit applies to.
  const unlimited = new DenialLimiter(loadAppConfig({ RATE_LIMIT_ENABLED: 'false' }).rateLimit, new ThrottlerStorageService());
  const metrics = new Metrics(db);
  const transactions = new TransactionRunner(db);
  const log = createAuditLog(transactions, db, new AuditWriteRepository(db), metrics, loadAppConfig({}).audit);
  const audit = new AuditService(log, transactions, unlimited, metrics, () => undefined);
  return new AssetsService(new AssetsRepository(db), audit, transactions, metrics);
}

const listQuery = (query: Record<string, unknown> = {}) => plainToInstance(ListAssetsQueryDto, query);

/** Asserts a 404 ASSET_ACCESS_DENIED that is an ASSET_NOT_FOUND denial of the decommission, whatever route asked for it. */
const deniedAsNotFound = (error: unknown) => {
  assert.ok(error instanceof AssetAccessDeniedError, `expected AssetAccessDeniedError, got ${String(error)}`);
  assert.equal(error.status, 404);
  assert.equal(error.errorCode, 'ASSET_ACCESS_DENIED');
  assert.equal(error.message, 'Asset not found or clearance insufficient');
  assert.deepEqual([error.deniedAction, error.denialReason], ['asset.decommission', 'ASSET_NOT_FOUND']);
  return true;
};

describe('AssetsService', () => {
  before(() => {
    // The audit service logs every denial; keep the test output readable.
    Logger.overrideLogger(false);
  });

  describe('decommission', () => {
    let db: Kysely<DB>;
    let sut: AssetsService;

    const assetRow = (assetId: string) => db.selectFrom('assets').select(ASSET_COLUMNS).where('asset_id', '=', assetId).executeTakeFirstOrThrow();
    const eventsFor = (assetId: string) =>
      db.selectFrom('audit_events').selectAll().where('asset_id', '=', assetId).orderBy('id').execute();

    before(async () => {
      db = await openDatabase([...ACTIVE, OLD]);
      sut = createService(db);
    });
    after(() => db.destroy());

    it('decommissions an active asset and returns the decommissioned record', async () => {
      const startedAt = Date.now();

      const result = await sut.decommission('TIE-0001', BODY, ADMIRAL, originFor('TIE-0001'));

      assert.deepEqual(result, {
        asset_id: 'TIE-0001',
        asset_type: 'vehicle',
        former_pilot: 'TK-421',
        decommission_reason: BODY.reason,
        authorized_by: BODY.authorized_by,
        decommissioned_at: result.decommissioned_at,
      });
      assert.match(result.decommissioned_at, ISO_UTC);
      assert.ok(Date.parse(result.decommissioned_at) >= startedAt && Date.parse(result.decommissioned_at) <= Date.now());
    });

    it('writes status, reason, time and authoriser to the asset row', async () => {
      const row = await assetRow('TIE-0001');

      assert.equal(row.status, 'decommissioned');
      assert.equal(row.decommission_reason, BODY.reason);
      assert.equal(row.authorized_by, BODY.authorized_by);
      assert.match(row.decommissioned_at ?? '', ISO_UTC);
    });

    it('records one allowed audit event with the actor, the request origin and the decision\'s details', async () => {
      const events = await eventsFor('TIE-0001');

      assert.equal(events.length, 1);
      const { id, occurred_at, prev_hash, hash, leaf_hash, leaf_index, ...event } = events[0];
      assert.equal(typeof id, 'number');
      assert.equal(typeof leaf_index, 'number');
      assert.match(leaf_hash, /^[A-Za-z0-9+/]{43}=$/);
      assert.match(prev_hash, /^[0-9a-f]{64}$/);
      assert.match(hash, /^[0-9a-f]{64}$/);
      assert.match(occurred_at, ISO_UTC);
      assert.deepEqual(event, {
        action: 'asset.decommission',
        outcome: 'allowed',
        reason: null,
        actor: 'admiral-7',
        actor_clearance: 7,
        asset_id: 'TIE-0001',
        request_id: 'req-TIE-0001',
        ip: '10.0.0.7',
        method: 'DELETE',
        path: '/v1/assets/TIE-0001',
        details: JSON.stringify(BODY),
      });
    });

    it('refuses a second decommission of the same asset with a 404 denial and keeps the first record', async () => {
      const first = await assetRow('TIE-0001');

      await assert.rejects(
        sut.decommission('TIE-0001', { reason: 'Again', authorized_by: 'Someone else' }, ADMIRAL, originFor('TIE-0001')),
        deniedAsNotFound,
      );

      assert.deepEqual(await assetRow('TIE-0001'), first);
      assert.deepEqual(
        (await eventsFor('TIE-0001')).map((e) => [e.action, e.outcome, e.reason]),
        [['asset.decommission', 'allowed', null]],
      );
    });

    it('refuses an unknown asset with a 404 ASSET_NOT_FOUND denial and writes nothing itself', async () => {
      await assert.rejects(sut.decommission('XYZ-9999', BODY, ADMIRAL, originFor('XYZ-9999')), deniedAsNotFound);

      assert.deepEqual(await eventsFor('XYZ-9999'), []);
      assert.equal(await db.selectFrom('assets').selectAll().where('asset_id', '=', 'XYZ-9999').executeTakeFirst(), undefined);
    });

    it('refuses an asset decommissioned before with 404 and leaves its record untouched', async () => {
      await assert.rejects(sut.decommission('OLD-0001', BODY, ADMIRAL, originFor('OLD-0001')), deniedAsNotFound);

      assert.deepEqual(await assetRow('OLD-0001'), OLD);
    });

    it('rolls the decommission back and answers 503 when its audit event cannot be written', async () => {
      await sql`CREATE TRIGGER reject_allowed BEFORE INSERT ON audit_events WHEN NEW.outcome = 'allowed'
                BEGIN SELECT RAISE(ABORT, 'audit store refused'); END`.execute(db);
      try {
        await assert.rejects(sut.decommission('TXN-0001', BODY, ADMIRAL, originFor('TXN-0001')), ServiceUnavailableError);
      } finally {
        await sql`DROP TRIGGER reject_allowed`.execute(db);
      }

      const row = await assetRow('TXN-0001');
      assert.equal(row.status, 'active');
      assert.equal(row.decommission_reason, null);
      assert.deepEqual(await eventsFor('TXN-0001'), []);
    });
  });

  describe('findOne', () => {
    let db: Kysely<DB>;
    let sut: AssetsService;

    before(async () => {
      db = await openDatabase([...ACTIVE, OLD]);
      sut = createService(db);
    });
    after(() => db.destroy());

    it('returns an active asset with null decommission fields', async () => {
      assert.deepEqual(await sut.findOne('TIE-0002'), {
        asset_id: 'TIE-0002',
        asset_type: 'vehicle',
        former_pilot: 'TN-3465',
        status: 'active',
        decommission_reason: null,
        decommissioned_at: null,
        authorized_by: null,
      });
    });

    it('returns a decommissioned asset with its decommission record', async () => {
      assert.deepEqual(await sut.findOne('OLD-0001'), OLD);
    });

    it('refuses an unknown asset with ResourceNotFoundError ASSET_NOT_FOUND', async () => {
      await assert.rejects(sut.findOne('XYZ-9999'), (error: unknown) => {
        assert.ok(error instanceof ResourceNotFoundError, `expected ResourceNotFoundError, got ${String(error)}`);
        assert.equal(error.status, 404);
        assert.equal(error.errorCode, 'ASSET_NOT_FOUND');
        assert.equal(error.message, 'Asset XYZ-9999 not found');
        return true;
      });
    });

    it('records nothing in the audit trail', async () => {
      assert.deepEqual(await db.selectFrom('audit_events').selectAll().execute(), []);
    });
  });

  describe('list', () => {
    // 12 assets; every third one (AST-0003, -0006, -0009, -0012) decommissioned. Inserted out of order.
    const assets: NewAsset[] = Array.from({ length: 12 }, (_, index) => {
      const n = 12 - index;
      const id = `AST-${String(n).padStart(4, '0')}`;
      return n % 3 === 0
        ? {
            asset_id: id,
            asset_type: 'equipment',
            former_pilot: `TK-${n}`,
            status: 'decommissioned' as const,
            decommission_reason: 'Worn out',
            decommissioned_at: '2026-01-01T00:00:00.000Z',
            authorized_by: 'Quartermaster',
          }
        : { asset_id: id, asset_type: 'vehicle', former_pilot: `TK-${n}` };
    });
    const ids = (page: { assets: { asset_id: string }[] }) => page.assets.map((asset) => asset.asset_id);
    let db: Kysely<DB>;
    let sut: AssetsService;

    before(async () => {
      db = await openDatabase(assets);
      sut = createService(db);
    });
    after(() => db.destroy());

    it('returns the first 10 assets ordered by asset_id by default, with the total count', async () => {
      const page = await sut.list(listQuery());

      assert.deepEqual(ids(page), ['AST-0001', 'AST-0002', 'AST-0003', 'AST-0004', 'AST-0005', 'AST-0006', 'AST-0007', 'AST-0008', 'AST-0009', 'AST-0010']);
      assert.equal(page.total_count, 12);
      assert.equal(page.page, 1);
      assert.equal(page.per_page, 10);
    });

    it('returns whole asset records', async () => {
      const page = await sut.list(listQuery({ limit: '1', page: '3' }));

      assert.deepEqual(page.assets, [
        {
          asset_id: 'AST-0003',
          asset_type: 'equipment',
          former_pilot: 'TK-3',
          status: 'decommissioned',
          decommission_reason: 'Worn out',
          decommissioned_at: '2026-01-01T00:00:00.000Z',
          authorized_by: 'Quartermaster',
        },
      ]);
    });

    it('pages by limit and page', async () => {
      const page = await sut.list(listQuery({ limit: '5', page: '2' }));

      assert.deepEqual(ids(page), ['AST-0006', 'AST-0007', 'AST-0008', 'AST-0009', 'AST-0010']);
      assert.deepEqual([page.total_count, page.page, page.per_page], [12, 2, 5]);
    });

    it('returns a short last page', async () => {
      const page = await sut.list(listQuery({ page: 2 }));

      assert.deepEqual(ids(page), ['AST-0011', 'AST-0012']);
      assert.equal(page.total_count, 12);
    });

    it('returns an empty page past the end, still with the total count', async () => {
      const page = await sut.list(listQuery({ limit: 10, page: 3 }));

      assert.deepEqual(page, { assets: [], total_count: 12, page: 3, per_page: 10 });
    });

    it('filters by status, counting only the matching assets', async () => {
      const decommissioned = await sut.list(listQuery({ status: 'decommissioned' }));
      const active = await sut.list(listQuery({ status: 'active', limit: '3' }));

      assert.deepEqual(ids(decommissioned), ['AST-0003', 'AST-0006', 'AST-0009', 'AST-0012']);
      assert.equal(decommissioned.total_count, 4);
      assert.deepEqual(ids(active), ['AST-0001', 'AST-0002', 'AST-0004']);
      assert.equal(active.total_count, 8);
      assert.ok(active.assets.every((asset) => asset.status === 'active'));
    });
  });
});
