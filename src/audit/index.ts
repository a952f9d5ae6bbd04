export { AuditModule } from './audit.module';
export { AuditLog, AuditService, createAuditLog, AuditWriteRepository, type AuditEntry } from './write';
export {
  APPROVAL_PROBLEMS,
  type AssetDisagreement,
  AuditChainVerifier,
  AuditWitnesses,
  CHAIN_PROBLEMS,
  type Checkpoint,
  cosign,
  type CosignatureCount,
  cosignerKeyOf,
  countCosignatures,
  isSignedByAny,
  NO_DECOMMISSION_EVENT,
  NoteError,
  type NoteVerifier,
  openCheckpoint,
  parseCheckpointBody,
  parseCosignerKey,
  parseVerifierKey,
  splitNote,
  TrailRepository,
  verifierKeyOf,
  verifyConsistency,
} from './trail';
export { auditEventBatches, AuditEventsService, AuditQueryRepository, type ShownAuditEvent, type AuditExportStart, decodeAuditCursor, encodeAuditCursor, IsAuditCursor } from './api';
export { AUDIT_ACTIONS, DENIAL_REASONS } from './audit.vocabulary';
