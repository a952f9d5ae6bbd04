import { AUTH_ACTIONS, AUTH_DENIAL_REASONS } from '../auth';
import { RATE_LIMITED_REASON } from '../rate-limit';

/** The audit module's own actions: its reads and its verification, refused below clearance 7. */
export const AUDIT_MODULE_ACTIONS = { readAudit: 'audit.read', verifyAudit: 'audit.verify' } as const;

/**
 * A copy of the words src/assets declares (ASSET_ACTIONS, DECOMMISSION_REQUEST_ACTIONS and their
 * denial reasons, in src/assets/assets.vocabulary.ts), for what the audit module reads of them: the
 * verifier's and the repository's decommission and approval events, the metrics of decommission
 * denials, and the listing's documented enums. The audit module cannot import assets (assets imports
 * audit); test/audited-refusals.e2e-spec.ts fails if the copy and the declaration part.
 */
const ASSET_ACTIONS_READ_BY_AUDIT = {
  decommission: 'asset.decommission',
  recommission: 'asset.recommission',
  readAsset: 'asset.read',
} as const;
const DECOMMISSION_REQUEST_ACTIONS_READ_BY_AUDIT = {
  requestDecommission: 'decommission.request',
  approveDecommission: 'decommission.approve',
  rejectDecommission: 'decommission.reject',
  withdrawDecommission: 'decommission.withdraw',
  expireDecommission: 'decommission.expire',
  readDecommissionRequests: 'decommission.read',
} as const;
/**
 * A copy of WEBHOOK_ACTIONS (src/delivery/delivery.vocabulary.ts), for the listing's documented enum:
 * the delivery module imports audit, so audit cannot import it; test/audited-refusals.e2e-spec.ts fails if they part.
 */
const WEBHOOK_ACTIONS_READ_BY_AUDIT = {
  createWebhook: 'webhook.create',
  deleteWebhook: 'webhook.delete',
  resumeWebhook: 'webhook.resume',
  rotateWebhookSecret: 'webhook.rotate_secret',
  readWebhooks: 'webhook.read',
} as const;
const ASSET_DENIAL_REASONS_READ_BY_AUDIT = ['ASSET_NOT_FOUND', 'ASSET_NOT_DECOMMISSIONED', 'PRECONDITION_FAILED', 'ASSET_NOT_ACTIVE'] as const;
const DECOMMISSION_REQUEST_DENIAL_REASONS_READ_BY_AUDIT = [
  'AUTHORIZED_BY_IS_CALLER',
  'DECOMMISSION_REQUEST_PENDING',
  'DECOMMISSION_REQUEST_NOT_FOUND',
  'NOT_AUTHORIZING_OFFICER',
  'NOT_REQUESTER',
  'DECOMMISSION_REQUEST_NOT_PENDING',
  'DECOMMISSION_REQUEST_EXPIRED',
  'DECOMMISSION_REQUEST_LIMIT',
] as const;

/** Every action the trail records, in the order the listing documents them. */
export const AUDIT_ACTIONS = {
  ...AUTH_ACTIONS,
  ...ASSET_ACTIONS_READ_BY_AUDIT,
  ...AUDIT_MODULE_ACTIONS,
  ...DECOMMISSION_REQUEST_ACTIONS_READ_BY_AUDIT,
  ...WEBHOOK_ACTIONS_READ_BY_AUDIT,
} as const;

/** Every reason a denial is recorded with, in the order the listing documents them. */
export const DENIAL_REASONS = [
  ...AUTH_DENIAL_REASONS,
  ...ASSET_DENIAL_REASONS_READ_BY_AUDIT,
  RATE_LIMITED_REASON,
  ...DECOMMISSION_REQUEST_DENIAL_REASONS_READ_BY_AUDIT,
] as const;
