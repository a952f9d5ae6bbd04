import { IsIn, IsOptional, ValidateBy } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { durationSeconds } from './durations';

export const DECOMMISSION_APPROVAL_POLICIES = ['none', 'required'] as const;
/** The longest a decommission request may wait for its approval: 30 days. */
export const APPROVAL_TTL_MAX_SECONDS = 2_592_000;

/** Whether a decommission needs a second officer's approval (docs/api.md#two-officers-for-a-decommission). */
export interface DecommissionApprovalConfig {
  /**
   * The policy this instance is set to, undefined when it follows the database's (which is the one in
   * force: src/assets/decommission-policy.ts). none: DELETE decommissions at once; required: DELETE opens
   * a request that the officer in authorized_by approves.
   */
  policy?: (typeof DECOMMISSION_APPROVAL_POLICIES)[number];
  /** How long a request waits for its approval before it expires. */
  ttlSeconds: number;
  /** How many pending requests one officer may hold at once: one officer must not hold every asset. */
  requestsPerOfficer: number;
}

export class DecommissionApprovalVariables {
  @IsOptional()
  @IsIn(DECOMMISSION_APPROVAL_POLICIES)
  DECOMMISSION_APPROVAL?: (typeof DECOMMISSION_APPROVAL_POLICIES)[number];

  @IsOptional()
  @ValidateBy({
    name: 'isApprovalTtl',
    validator: {
      validate: (value) => typeof value === 'string' && (durationSeconds(value) ?? Infinity) <= APPROVAL_TTL_MAX_SECONDS,
      defaultMessage: () => 'DECOMMISSION_APPROVAL_TTL must be a duration with its unit (s, m, h or d), such as 24h, 90m or 7d, up to 30d',
    },
  })
  DECOMMISSION_APPROVAL_TTL?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000)
  DECOMMISSION_REQUESTS_PER_OFFICER?: number;
}

export function decommissionApprovalConfig(vars: DecommissionApprovalVariables): DecommissionApprovalConfig {
  return {
    policy: vars.DECOMMISSION_APPROVAL,
    ttlSeconds: durationSeconds(vars.DECOMMISSION_APPROVAL_TTL ?? '24h') as number,
    requestsPerOfficer: vars.DECOMMISSION_REQUESTS_PER_OFFICER ?? 5,
  };
}
