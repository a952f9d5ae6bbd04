/**
 * Tells whether an unexpected error means a backing service cannot be reached (answered with 503)
 * rather than a fault (500). The database module provides it; common knows no engine.
 */
export type UnavailabilityCheck = (error: unknown) => boolean;
export const UNAVAILABILITY_CHECK = Symbol('UNAVAILABILITY_CHECK');
