import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiErrorResponse } from '../common';
import { KEY_IN_USE_MESSAGE, KEY_MISMATCH_MESSAGE } from './idempotency.errors';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/**
 * Marks a decision that takes an Idempotency-Key (docs/api.md#retrying-a-decision-idempotency-key), for
 * the IdempotencyInterceptor and the OpenAPI document alike. The route documents the key's 409 and 422
 * beside its own.
 */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes the decision safe to send again: the same caller sending the same request (method, path and body) with the same key within IDEMPOTENCY_TTL gets the first answer again ' +
        '(its status, body, Location and ETag, plus Idempotent-Replayed: true), and nothing is applied twice. Kept: 2xx, and the 404, 409 and 412 that reflect the record. ' +
        '1 to 255 visible ASCII characters (else 400); the same key with another request: 422 IDEMPOTENCY_KEY_MISMATCH; while the first is being decided: 409 IDEMPOTENCY_KEY_IN_USE.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]{1,255}$' },
    }),
  );

/** What a decision that takes an Idempotency-Key adds to the description of its 409 and its 422. */
export const IDEMPOTENCY_IN_USE = `or a request with the same Idempotency-Key is still being decided (IDEMPOTENCY_KEY_IN_USE: ${KEY_IN_USE_MESSAGE})`;
export const IDEMPOTENCY_MISMATCH = 'or the Idempotency-Key was used for another method, path or body (IDEMPOTENCY_KEY_MISMATCH)';
/** IDEMPOTENCY_KEY_IN_USE's Retry-After, for the headers of a 409. */
export const RETRY_AFTER_IN_USE = {
  'Retry-After': { description: 'IDEMPOTENCY_KEY_IN_USE: seconds to wait before sending the request again', schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 1 } },
};

/** The 422 of a decision whose only 422 is the key's. */
export const ApiIdempotencyKeyMismatchResponse = () =>
  ApiErrorResponse(422, 'IDEMPOTENCY_KEY_MISMATCH', KEY_MISMATCH_MESSAGE, 'The Idempotency-Key was used for another method, path or body (IDEMPOTENCY_KEY_MISMATCH); nothing is decided');
