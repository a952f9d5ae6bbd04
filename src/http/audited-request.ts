import type { Request } from 'express';
import type { Actor, AuditedDenial, Denial } from '../common';

declare module 'express-serve-static-core' {
  interface Request {
    /** The caller, once a valid token proved who it is (AuthenticationGuard): the actor of the request's refusals. */
    officer?: Actor;
    /**
     * The action the route's refusals are recorded under, as the route declares it
     * (`@RequiresClearance(level, { action })`); the ClearanceGuard sets it before it checks the level.
     */
    auditedAction?: string;
  }
}

/**
 * The denial an audited refusal records: under the action the error names, else its route's; by the
 * request's authenticated officer; on the asset the error names, else (where it is answered) the path's.
 * Undefined when neither the error nor its route names an action: a fault, never a silent refusal.
 */
export function denialOf(error: AuditedDenial, request: Request): Denial | undefined {
  const action = error.deniedAction ?? request.auditedAction;
  if (action === undefined) {
    return undefined;
  }
  const denial: Denial = { action, reason: error.denialReason };
  if (request.officer) {
    denial.actor = request.officer;
  }
  if (error.deniedAssetId !== undefined) {
    denial.assetId = error.deniedAssetId;
  }
  return denial;
}
