import { HttpStatus } from '@nestjs/common';
import { ApiError, ValidationFailedError } from '../common';

/** 1 to 255 visible ASCII characters (the draft's key is opaque; this bounds what is stored). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
export const INVALID_KEY_MESSAGE = 'Idempotency-Key must be 1 to 255 visible ASCII characters';

export class InvalidIdempotencyKeyError extends ValidationFailedError {
  constructor() {
    super(INVALID_KEY_MESSAGE);
  }
}

export const KEY_MISMATCH_MESSAGE = 'This Idempotency-Key was used for another request (method, path or body); a new request needs a new key';

/** The key's first request was another one: a key names one request, so nothing is decided. Not a refusal of access, so not audited. */
export class IdempotencyKeyMismatchError extends ApiError {
  readonly status = HttpStatus.UNPROCESSABLE_ENTITY;
  readonly errorCode = 'IDEMPOTENCY_KEY_MISMATCH';

  constructor() {
    super(KEY_MISMATCH_MESSAGE);
  }
}

export const KEY_IN_USE_MESSAGE = 'A request with this Idempotency-Key is still being decided; retry once it is answered';

/** The key's first request is still being decided, on this instance or another: retry shortly for its answer. */
export class IdempotencyKeyInUseError extends ApiError {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'IDEMPOTENCY_KEY_IN_USE';
  override readonly headers = { 'Retry-After': '1' };

  constructor() {
    super(KEY_IN_USE_MESSAGE);
  }
}
