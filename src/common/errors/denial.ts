/**
 * What every module shares of a refusal. The words themselves (actions such as `asset.decommission`,
 * reasons such as `ASSET_NOT_FOUND`) belong to the feature that refuses: each module declares its own.
 */
export interface Actor {
  id: string;
  clearance: number;
}

/** A refused request as the audit trail records it; its origin (and the asset its path names) is added where it is answered. */
export interface Denial {
  /** The action refused, as its module names it (`auth.authenticate`, `asset.decommission`, ...). */
  action: string;
  /** Why, as the refusing module names it (`TOKEN_MISSING`, `ASSET_NOT_FOUND`, ...). */
  reason: string;
  /** The caller, when a valid token named one. */
  actor?: Actor;
  /** The asset refused, when the path does not name it (a decommission request's decision). */
  assetId?: string;
}
