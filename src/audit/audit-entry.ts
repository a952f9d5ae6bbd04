import type { Actor, DenialReason, RequestOrigin } from '../common';
import type { AuditOutcome } from '../database';

/** One access decision, allowed or denied, with the request it answers. */
export interface AuditEntry {
  action: string;
  outcome: AuditOutcome;
  reason?: DenialReason;
  actor?: Actor;
  origin: RequestOrigin;
}
