/** The audit trail's words for the refusals of auth: stored as they are here, in the database and the API. */

/** The action every token refusal is recorded under, whatever route it came in on. */
export const AUTH_ACTIONS = { authenticate: 'auth.authenticate' } as const;

export const TOKEN_DENIAL_REASONS = ['TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_EXPIRED'] as const;
export type TokenDenialReason = (typeof TOKEN_DENIAL_REASONS)[number];

/** A cleared route refused below its level; recorded under the action the route declares. */
export const CLEARANCE_INSUFFICIENT = 'CLEARANCE_INSUFFICIENT';

export const AUTH_DENIAL_REASONS = [...TOKEN_DENIAL_REASONS, CLEARANCE_INSUFFICIENT] as const;
