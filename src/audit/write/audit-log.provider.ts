import type { Provider } from '@nestjs/common';
import { Kysely } from 'kysely';
import { AUDIT_CONFIG, type AuditConfig } from '../../config';
import { type DB, TransactionRunner } from '../../database';
import { Metrics } from '../../observability';
import { AuditLog } from './audit-log';
import { AuditWriteRepository } from './audit-write.repository';
import { PostgresAuditLog } from './postgres-audit-log';
import { SqliteAuditLog } from './sqlite-audit-log';

/** The engine's audit log: SQLite's commit group already orders every write; PostgreSQL's decisions need the sequencer. */
export function createAuditLog(transactions: TransactionRunner, db: Kysely<DB>, writes: AuditWriteRepository, metrics: Metrics, config: AuditConfig): AuditLog {
  return transactions.groupsCommits ? new SqliteAuditLog(writes) : new PostgresAuditLog(db, writes, metrics, config);
}

/** Chosen once, at start-up. */
export const AUDIT_LOG_PROVIDER: Provider = {
  provide: AuditLog,
  useFactory: createAuditLog,
  inject: [TransactionRunner, Kysely, AuditWriteRepository, Metrics, AUDIT_CONFIG],
};
