import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { createDatabase, DatabaseHealth, type DB, migrateToLatest, TransactionRunner } from '../database';
import { Metrics } from '../observability';
import type { DenialLimiter } from '../rate-limit';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditSequencer } from './audit-sequencer';
import { loadAppConfig } from '../config';
import { createTestDatabase, failAuditEvents, testEngines } from '../../test/support/databases';
import { ServiceUnavailableError } from '../common';

const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };
const entry = (requestId: string) => ({
  action: 'asset.decommission',
  outcome: 'allowed' as const,
  origin: { requestId, ip: '10.0.0.7', method: 'DELETE', path: '/v1/assets/TIE-0001', assetId: 'TIE-0001' },
});

for (const engine of testEngines()) {
  describe(`AuditService.record [${engine}]`, { timeout: 20_000 }, () => {
    let dir: string;
    let drop: () => Promise<void>;
    let db: Kysely<DB>;
    let transactions: TransactionRunner;
    let sequencer: AuditSequencer;
    let sut: AuditService;
    const recorded = async () => (await db.selectFrom('audit_events').select('request_id').orderBy('id').execute()).map((row) => row.request_id);

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'audit-service-'));
      const database = await createTestDatabase(engine, dir);
      drop = database.drop;
      // One connection on PostgreSQL: an append that opened a transaction apart from its caller's would wait for it.
      db = createDatabase(engine === 'sqlite' ? { dialect: 'sqlite', path: ':memory:' } : { dialect: 'postgres', url: database.url, poolSize: 1, timeouts: TIMEOUTS });
      await migrateToLatest(db);
      transactions = new TransactionRunner(db);
      const unlimited = { count: async () => ({ limited: false }) } as unknown as DenialLimiter;
      const [repository, metrics] = [new AuditRepository(db), new Metrics(db)];
      sequencer = new AuditSequencer(db, repository, transactions, metrics, loadAppConfig({ DATABASE_URL: database.url }).audit);
      sequencer.onApplicationBootstrap();
      sut = new AuditService(repository, unlimited, transactions, metrics, sequencer, new DatabaseHealth(db));
    });
    after(async () => {
      await sequencer.onApplicationShutdown();
      await db.destroy();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('commits an event recorded outside any transaction in a transaction of its own', async () => {
      await sut.record(entry('alone'));
      assert.deepEqual(await recorded(), ['alone']);
    });

    it("joins the caller's transaction: the event commits with the caller's work, and not without it", async () => {
      await assert.rejects(
        transactions.run(async () => {
          await sut.record(entry('rolled back'));
          throw new Error('the change it records fails');
        }),
        /the change it records fails/,
      );
      await transactions.run(() => sut.record(entry('joined')));
      assert.deepEqual(await recorded(), ['alone', 'joined']);
    });

    describe('recordedChange', () => {
      const retire = () =>
        sut.recordedChange((values: { assetId: string }) =>
          db.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', values.assetId).where('status', '=', 'active').returning(['asset_id', 'status']),
        );
      const status = async (assetId: string) => (await db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;

      before(async () => {
        await db.insertInto('assets').values([{ asset_id: 'RC-0001', asset_type: 'vehicle', former_pilot: 'TK-1' }, { asset_id: 'RC-0002', asset_type: 'vehicle', former_pilot: 'TK-2' }]).execute();
      });

      it('applies the change and its event together, and resolves with the changed row once the event is in the chain', async () => {
        const changed = await retire()({ assetId: 'RC-0001' }, entry('changed'));
        assert.deepEqual(changed, { asset_id: 'RC-0001', status: 'decommissioned' });
        assert.equal(await status('RC-0001'), 'decommissioned');
        assert.equal((await recorded()).at(-1), 'changed');
        assert.equal(Number((await sql<{ n: number }>`select count(*) as n from audit_pending`.execute(db)).rows[0].n), 0);
      });

      it('writes no event when the change changes nothing', async () => {
        const before = await recorded();
        assert.equal(await retire()({ assetId: 'RC-0001' }, entry('unchanged')), undefined);
        assert.equal(await retire()({ assetId: 'NOT-THERE' }, entry('absent')), undefined);
        assert.deepEqual(await recorded(), before);
      });

      it('leaves the change undone, with 503, when its event cannot be written', async () => {
        const restore = await failAuditEvents(db, engine, 'allowed');
        try {
          await assert.rejects(retire()({ assetId: 'RC-0002' }, entry('refused')), ServiceUnavailableError);
        } finally {
          await restore();
        }
        assert.equal(await status('RC-0002'), 'active');
        assert.ok(!(await recorded()).includes('refused'));
      });
    });
  });
}
