import type { RequestOrigin } from '../request-origin';
import type { Denial } from './denial';

/**
 * Writes a denial to the audit trail. The audit module provides it; the exception filter calls it for
 * every refusal that reaches a response. It may throw an ApiError (429 when a client floods) that is
 * answered instead; any other failure is answered 503.
 */
export interface DenialRecorder {
  recordDenial(denial: Denial, origin: RequestOrigin): Promise<void>;
}
export const DENIAL_RECORDER = Symbol('DENIAL_RECORDER');
