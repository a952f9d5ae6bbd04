export { AuditModule } from './audit.module';
export { AuditService } from './audit.service';
export { AUDIT_ACTIONS, DENIAL_REASONS, originOf, requestedAssetId } from './audit-entry';
export type { AuditActor, DenialReason, RequestOrigin } from './audit-entry';
