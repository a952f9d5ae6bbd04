import { RETRY_CAP_MS } from '../../config';

/**
 * How long to wait after the `failedAttempts`-th failed attempt at an event: WEBHOOK_RETRY_BASE_MS
 * doubling with each failure, up to RETRY_CAP_MS, of which a random part is taken off ("equal jitter":
 * between half and all of it), so feeds that failed together, at one receiver's outage, do not all
 * retry at the same moment, and no wait is ever longer than the cap.
 */
export function retryDelayMs(failedAttempts: number, baseMs: number, random: () => number = Math.random): number {
  const doubled = Math.min(RETRY_CAP_MS, baseMs * 2 ** Math.min(failedAttempts - 1, 40));
  return Math.round(doubled / 2 + (random() * doubled) / 2);
}
