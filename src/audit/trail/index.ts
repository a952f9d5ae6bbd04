export { APPROVAL_PROBLEMS, type AssetDisagreement, AuditChainVerifier, CHAIN_PROBLEMS, type ChainProblem, NO_DECOMMISSION_EVENT } from './audit-chain.verifier';
export { chainEvents, DECISION_FIELDS, endAfter, LEAF_FIELDS, nextEvent, STORED_EVENT_COLUMNS, type UnchainedEvent } from './audit-chain';
export { AuditTree } from './audit-tree';
export { ChainVerificationGate, RETRY_AFTER_MAX_SECONDS, VERIFICATIONS_BUSY_MESSAGE } from './chain-verification-gate';
export { ChainVerificationThread } from './chain-verification-thread';
export { type Checkpoint, openCheckpoint, parseVerifierKey, verifierKeyOf } from './checkpoint-note';
export { appendLeaves, decodeFrontier, encodeFrontier, type Frontier, frontierRoot, rootPlan, type StoredNode, verifyConsistency } from './merkle';
export { AUDIT_FIELD_LIMITS, storable } from './storable';
export { nodeKey, TrailRepository } from './trail.repository';
