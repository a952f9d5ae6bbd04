/** Where a request came from, as the audit trail records it. */
export interface RequestOrigin {
  requestId: string;
  ip: string | null;
  method: string;
  path: string;
  /** The asset the path names (the `asset_id` parameter), if any. */
  assetId: string | null;
}
