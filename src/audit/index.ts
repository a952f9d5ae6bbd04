export { AuditModule } from './audit.module';
export { AuditService } from './audit.service';
export type { AuditEntry } from './audit-entry';
