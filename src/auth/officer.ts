import type { Actor } from '../common';

/** The caller, as proven by a valid token: the same actor the audit trail records. It rides on `request.officer`, declared by http, whose filter records it as a refusal's actor. */
export type AuthenticatedOfficer = Actor;

/** A token's subject is an officer id: the audit trail records it whole up to this length, and no longer. */
export const SUBJECT_MAX_LENGTH = 256;

export const MIN_CLEARANCE = 0;
export const MAX_CLEARANCE = 10;
