import type { ApiError } from './api-error';

/**
 * The answer for an unexpected error that means a backing service cannot serve right now: 503
 * STORAGE_UNAVAILABLE when the database cannot store data, 503 SERVICE_UNAVAILABLE when it cannot be
 * reached; undefined for a fault (500). The database module provides it; common knows no engine.
 */
export type UnavailabilityCheck = (error: unknown) => ApiError | undefined;
export const UNAVAILABILITY_CHECK = Symbol('UNAVAILABILITY_CHECK');
