export { AuditModule } from './audit.module';
export { AuditService } from './audit.service';
export { AuditSequencer } from './audit-sequencer';
export type { AuditEntry } from './audit-entry';
export { AuditChainVerifier, CHAIN_PROBLEMS } from './audit-chain.verifier';
export { AuditRepository } from './audit.repository';
export { auditEventBatches, type AuditExportStart } from './audit-export';
export { type Checkpoint, openCheckpoint, parseVerifierKey, verifierKeyOf } from './checkpoint-note';
export { verifyConsistency } from './merkle';
