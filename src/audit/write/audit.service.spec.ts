import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../../database';
import { Metrics } from '../../observability';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { DenialLimiter } from '../../rate-limit';
import { loadAppConfig } from '../../config';
import { createTestDatabase, failAuditEvents, testEngines } from '../../../test/support/databases';
import { ServiceUnavailableError } from '../../common';
import { AuditWriteRepository } from './audit-write.repository';
import { AuditService } from './audit.service';
import type { AuditLog } from './audit-log';
import { PostgresAuditLog } from './postgres-audit-log';
import { SqliteAuditLog } from './sqlite-audit-log';

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
    let log: AuditLog;
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
      const unlimited = new DenialLimiter(loadAppConfig({ RATE_LIMIT_ENABLED: 'false' }).rateLimit, new ThrottlerStorageService());
      const [writes, metrics] = [new AuditWriteRepository(db), new Metrics(db)];
      if (engine === 'sqlite') {
        log = new SqliteAuditLog(writes);
      } else {
        const sequencer = new PostgresAuditLog(db, writes, metrics, loadAppConfig({ DATABASE_URL: database.url }).audit);
        sequencer.onApplicationBootstrap();
        log = sequencer;
      }
      sut = new AuditService(log, transactions, unlimited, metrics, () => undefined);
    });
    after(async () => {
      if (log instanceof PostgresAuditLog) {
        await log.onApplicationShutdown();
      }
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

    describe('append, inside the transaction of the change it records', () => {
      const retire = (assetId: string, requestId: string) =>
        transactions.run(async (trx) => {
          const changed = await trx.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', assetId).where('status', '=', 'active').returning(['asset_id', 'status']).executeTakeFirst();
          if (changed) {
            await sut.append(trx, entry(requestId));
          }
          return changed;
        });
      const status = async (assetId: string) => (await db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;

      before(async () => {
        await db.insertInto('assets').values([{ asset_id: 'RC-0001', asset_type: 'vehicle', former_pilot: 'TK-1' }, { asset_id: 'RC-0002', asset_type: 'vehicle', former_pilot: 'TK-2' }]).execute();
      });

      it('commits the change and its event together, and resolves once the event is in the chain', async () => {
        const changed = await retire('RC-0001', 'changed');
        assert.deepEqual(changed, { asset_id: 'RC-0001', status: 'decommissioned' });
        assert.equal(await status('RC-0001'), 'decommissioned');
        assert.equal((await recorded()).at(-1), 'changed');
        assert.equal(Number((await sql<{ n: number }>`select count(*) as n from audit_pending`.execute(db)).rows[0].n), 0);
      });

      it('leaves the change undone, with 503, when its event cannot be written', async () => {
        const restore = await failAuditEvents(db, engine, 'allowed');
        try {
          await assert.rejects(retire('RC-0002', 'refused'), ServiceUnavailableError);
        } finally {
          await restore();
        }
        assert.equal(await status('RC-0002'), 'active');
        assert.ok(!(await recorded()).includes('refused'));
      });
    });
  });
}
