/** The actions an access decision is recorded under. */
export const AUDIT_ACTIONS = {
  authenticate: 'auth.authenticate',
  decommission: 'asset.decommission',
  recommission: 'asset.recommission',
  readAsset: 'asset.read',
  readAudit: 'audit.read',
  verifyAudit: 'audit.verify',
} as const;

export const DENIAL_REASONS = [
  'TOKEN_MISSING',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'CLEARANCE_INSUFFICIENT',
  'ASSET_NOT_FOUND',
  'ASSET_NOT_DECOMMISSIONED',
  'RATE_LIMITED',
] as const;
export type DenialReason = (typeof DENIAL_REASONS)[number];

export interface Actor {
  id: string;
  clearance: number;
}

/** A refused request as the audit trail records it; its origin (and the asset its path names) is added where it is answered. */
export interface Denial {
  action: string;
  reason: DenialReason;
  /** The caller, when a valid token named one. */
  actor?: Actor;
}
