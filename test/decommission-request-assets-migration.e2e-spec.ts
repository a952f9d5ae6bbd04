import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { Kysely, type Migration, Migrator } from 'kysely';
import { DecommissionRequestsRepository } from '../src/assets/decommission-requests.repository';
import { loadAppConfig } from '../src/config';
import { createDatabase, currentSchema, type DB, migrateToLatest } from '../src/database';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';

/** Every migration before 015, as the release before it ran them. */
const BEFORE_015 = [
  '001-initial',
  '002-audit-chain',
  '003-vessel-counts',
  '004-audit-pending',
  '005-audit-tree',
  '006-audit-query-indexes',
  '007-decommission-requests',
  '008-audit-tree-without-pairs',
  '009-decommission-request-kinds',
  '010-decommission-policy',
  '011-imported-decommissions',
  '012-delivery-feeds',
  '013-idempotency-keys',
  '014-audit-cosignatures',
];

const REQUEST = { kind: 'decommission' as 'decommission' | 'recommission', requested_by: 'officer-7', authorized_by: 'officer-8', reason: 'Worn out', created_at: '2026-11-20T10:00:00.000Z', expires_at: '2099-01-01T00:00:00.000Z' };
/** Requests as release 014 kept them, one asset each: two pending, one decided. */
const OLD_REQUESTS = [
  { ...REQUEST, request_id: '11111111-1111-4111-8111-111111111111', asset_id: 'TIE-0001', state: 'pending' as const },
  { ...REQUEST, request_id: '22222222-2222-4222-8222-222222222222', asset_id: 'TIE-0002', state: 'approved' as const, decided_at: '2026-11-20T11:00:00.000Z', decided_by: 'officer-8' },
  { ...REQUEST, request_id: '33333333-3333-4333-8333-333333333333', asset_id: 'EQP-0001', state: 'pending' as const, kind: 'recommission' as const },
];

describeEachDatabase('migration 015-decommission-request-assets on a database with requests', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let db: Kysely<DB>;
  let requests: DecommissionRequestsRepository;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-request-assets-migration-'));
    database = await createTestDatabase(engine, dir);
    db = createDatabase(loadAppConfig({ DATABASE_URL: database.url, JWT_SECRET: 'x'.repeat(32) }, dir).database);
    const migrations: Record<string, Migration> = Object.fromEntries(
      await Promise.all(BEFORE_015.map(async (name) => [name, (await import(`../src/database/migrations/${name}.js`)) as Migration])),
    );
    const release14 = new Migrator({ db, provider: { getMigrations: async () => migrations }, migrationTableSchema: await currentSchema(db) });
    assert.equal((await release14.migrateToLatest()).error, undefined);
    await db.insertInto('assets').values([
      { asset_id: 'TIE-0001', asset_type: 'vehicle', former_pilot: 'TK-1' },
      { asset_id: 'TIE-0003', asset_type: 'vehicle', former_pilot: 'TK-3' },
    ]).execute();
    await db.insertInto('decommission_requests').values(OLD_REQUESTS).execute();
    assert.deepEqual(await migrateToLatest(db), ['015-decommission-request-assets', '016-idempotency-keys-answers-only', '017-audit-asset-ids-bytewise']);
    requests = new DecommissionRequestsRepository(db);
  });
  after(async () => {
    await db.destroy();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every request, each holding its one asset, and holds the assets of the pending ones only', async () => {
    for (const old of OLD_REQUESTS) {
      const request = await requests.findById(old.request_id);
      assert.deepEqual([request?.asset_id, request?.asset_ids, request?.batch_id, request?.state], [old.asset_id, [old.asset_id], null, old.state]);
    }
    const held = await db.selectFrom('decommission_request_assets').select(['asset_id', 'pending']).orderBy('asset_id').execute();
    assert.deepEqual(held, [
      { asset_id: 'EQP-0001', pending: 1 },
      { asset_id: 'TIE-0001', pending: 1 },
      { asset_id: 'TIE-0002', pending: 0 },
    ]);
  });

  it('keeps a pending request the one request of its asset: a new one, alone or in a batch, cannot hold it', async () => {
    const opening = {
      requestId: '44444444-4444-4444-8444-444444444444',
      assetIds: ['TIE-0003', 'TIE-0001'],
      batchId: '55555555-5555-4555-8555-555555555555',
      kind: 'decommission' as const,
      requestedBy: 'officer-9',
      authorizedBy: 'officer-8',
      reason: 'Again',
      createdAt: '2026-11-21T10:00:00.000Z',
      expiresAt: '2099-01-01T00:00:00.000Z',
    };
    const { refused } = await db.transaction().execute((trx) => requests.open(trx, opening));
    assert.deepEqual(refused, ['TIE-0001']);
    assert.deepEqual(await requests.holdersOf(['TIE-0001', 'TIE-0003']), new Map([['TIE-0001', OLD_REQUESTS[0].request_id], ['TIE-0003', opening.requestId]]));
  });

  it('lists an old request by its asset', async () => {
    const { rows } = await requests.findPage({ asset_id: 'TIE-0002' }, { limit: 10 });
    assert.deepEqual(rows.map((row) => row.request_id), [OLD_REQUESTS[1].request_id]);
  });
});
