import type { Request } from 'express';
import type { AuditOutcome } from '../database';

export const AUDIT_ACTIONS = {
  authenticate: 'auth.authenticate',
  decommission: 'asset.decommission',
  readAudit: 'audit.read',
  verifyAudit: 'audit.verify',
} as const;

export const DENIAL_REASONS = [
  'TOKEN_MISSING',
  'TOKEN_INVALID',
  'TOKEN_EXPIRED',
  'CLEARANCE_INSUFFICIENT',
  'ASSET_NOT_FOUND',
] as const;
export type DenialReason = (typeof DENIAL_REASONS)[number];

/** Where a request came from, as the audit trail records it. */
export interface RequestOrigin {
  requestId: string;
  ip: string | null;
  method: string;
  path: string;
}

export function originOf(req: Request): RequestOrigin {
  return { requestId: req.requestId, ip: req.ip ?? null, method: req.method, path: req.originalUrl.split('?')[0] };
}

/** The asset a request names in its path, if any: recorded even when the request is refused. */
export function requestedAssetId(req: Request): string | null {
  const assetId = req.params?.asset_id;
  return typeof assetId === 'string' ? assetId : null;
}

export interface AuditActor {
  id: string;
  clearance: number;
}

export interface AuditEntry {
  action: string;
  outcome: AuditOutcome;
  reason?: DenialReason;
  actor?: AuditActor | null;
  assetId?: string | null;
  origin: RequestOrigin;
}
