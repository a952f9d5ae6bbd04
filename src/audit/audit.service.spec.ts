import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../database';
import { Metrics } from '../observability';
import type { DenialLimiter } from '../rate-limit';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditSequencer } from './audit-sequencer';
import { loadAppConfig } from '../config';
import { createTestDatabase, testEngines } from '../../test/support/databases';

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
      sequencer = new AuditSequencer(db, repository, transactions, metrics, loadAppConfig({ DATABASE_URL: database.url }));
      sequencer.onApplicationBootstrap();
      sut = new AuditService(repository, unlimited, transactions, metrics, sequencer);
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
  });
}
