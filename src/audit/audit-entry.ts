import type { Actor, DenialReason, RequestOrigin } from '../common';
import type { AuditOutcome } from '../database';

/** One access decision, allowed or denied, with the request it answers. */
export interface AuditEntry {
  action: string;
  outcome: AuditOutcome;
  reason?: DenialReason;
  actor?: Actor;
  origin: RequestOrigin;
  /** An allowed decommission's reason and authorising officer, as the request gave them. */
  details?: DecisionDetails;
}

export interface DecisionDetails {
  reason: string;
  authorized_by: string;
}
