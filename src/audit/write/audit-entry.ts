import type { Actor, RequestOrigin } from '../../common';
import type { AuditOutcome } from '../../database';

/** One access decision, allowed or denied, with the request it answers. */
export interface AuditEntry {
  action: string;
  outcome: AuditOutcome;
  reason?: string;
  actor?: Actor;
  origin: RequestOrigin;
  /** An allowed decommission's (or decommission request's) reason and authorising officer, as the request gave them; a webhook change's subscription. */
  details?: DecisionDetails;
}

export type DecisionDetails = DecommissionDetails | WebhookDetails;

export interface DecommissionDetails {
  /** The decommission request the decision belongs to (DECOMMISSION_APPROVAL=required). */
  request_id?: string;
  /** The batch the decommission was one of (POST /v1/assets/decommissions). */
  batch_id?: string;
  reason: string;
  authorized_by: string;
}

/** A change to a webhook subscription: which one, and where it sends (never its secret). */
export interface WebhookDetails {
  webhook_id: string;
  url: string;
}
