export { AuditService } from './audit.service';
export { AuditLog } from './audit-log';
export { AUDIT_LOG_PROVIDER, createAuditLog } from './audit-log.provider';
export { AuditWriteRepository } from './audit-write.repository';
export type { AuditEntry, DecisionDetails } from './audit-entry';
