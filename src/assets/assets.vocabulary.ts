/** The audit trail's words for the decisions of assets: stored as they are here, in the database and the API. */

export const ASSET_ACTIONS = {
  decommission: 'asset.decommission',
  recommission: 'asset.recommission',
  /** The asset reads, refused below clearance 7. */
  read: 'asset.read',
} as const;

/** DECOMMISSION_APPROVAL=required: the steps of a decommission request, of either kind (decommission or recommission). */
export const DECOMMISSION_REQUEST_ACTIONS = {
  request: 'decommission.request',
  approve: 'decommission.approve',
  reject: 'decommission.reject',
  withdraw: 'decommission.withdraw',
  expire: 'decommission.expire',
  read: 'decommission.read',
} as const;

/** PRECONDITION_FAILED: an If-Match that no longer names the asset's record (412). */
/** ASSET_NOT_ACTIVE: a batch naming an asset already decommissioned (409). */
export const ASSET_DENIAL_REASONS = ['ASSET_NOT_FOUND', 'ASSET_NOT_DECOMMISSIONED', 'PRECONDITION_FAILED', 'ASSET_NOT_ACTIVE'] as const;
export type AssetDenialReason = (typeof ASSET_DENIAL_REASONS)[number];

export const DECOMMISSION_REQUEST_DENIAL_REASONS = [
  'AUTHORIZED_BY_IS_CALLER',
  'DECOMMISSION_REQUEST_PENDING',
  'DECOMMISSION_REQUEST_NOT_FOUND',
  'NOT_AUTHORIZING_OFFICER',
  'NOT_REQUESTER',
  'DECOMMISSION_REQUEST_NOT_PENDING',
  'DECOMMISSION_REQUEST_EXPIRED',
  'DECOMMISSION_REQUEST_LIMIT',
] as const;
export type DecommissionRequestDenialReason = (typeof DECOMMISSION_REQUEST_DENIAL_REASONS)[number];
