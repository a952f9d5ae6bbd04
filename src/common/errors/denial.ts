/** The actions an access decision is recorded under. */
export const AUDIT_ACTIONS = {
  authenticate: 'auth.authenticate',
  decommission: 'asset.decommission',
  recommission: 'asset.recommission',
  readAsset: 'asset.read',
  readAudit: 'audit.read',
  verifyAudit: 'audit.verify',
  requestDecommission: 'decommission.request',
  approveDecommission: 'decommission.approve',
  rejectDecommission: 'decommission.reject',
  withdrawDecommission: 'decommission.withdraw',
  expireDecommission: 'decommission.expire',
  readDecommissionRequests: 'decommission.read',
} as const;

export const DENIAL_REASONS = [
  'TOKEN_MISSING',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'CLEARANCE_INSUFFICIENT',
  'ASSET_NOT_FOUND',
  'ASSET_NOT_DECOMMISSIONED',
  'RATE_LIMITED',
  'AUTHORIZED_BY_IS_CALLER',
  'DECOMMISSION_REQUEST_PENDING',
  'DECOMMISSION_REQUEST_NOT_FOUND',
  'NOT_AUTHORIZING_OFFICER',
  'NOT_REQUESTER',
  'DECOMMISSION_REQUEST_NOT_PENDING',
  'DECOMMISSION_REQUEST_EXPIRED',
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
  /** The asset refused, when the path does not name it (a decommission request's decision). */
  assetId?: string;
}
