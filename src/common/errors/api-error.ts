import { HttpStatus } from '@nestjs/common';
import type { Denial } from './denial';

/**
 * An error a client is meant to see. The global filter turns it into the
 * spec's error body; anything that is not an ApiError becomes a 500.
 */
export abstract class ApiError extends Error {
  abstract readonly status: HttpStatus;
  abstract readonly errorCode: string;
  readonly headers: Readonly<Record<string, string>> = {};
  /** Set when the error refuses access: the exception filter records it before it answers. */
  denial?: Denial;

  deniedAs(denial: Denial): this {
    this.denial = denial;
    return this;
  }
}

export class ValidationFailedError extends ApiError {
  readonly status = HttpStatus.BAD_REQUEST;
  readonly errorCode = 'VALIDATION_ERROR';
}

export class UnauthenticatedError extends ApiError {
  readonly status = HttpStatus.UNAUTHORIZED;
  readonly errorCode = 'UNAUTHENTICATED';
  override readonly headers = { 'WWW-Authenticate': 'Bearer' };
}

export class ClearanceInsufficientError extends ApiError {
  readonly status = HttpStatus.FORBIDDEN;
  readonly errorCode = 'CLEARANCE_INSUFFICIENT';
}

export class ResourceNotFoundError extends ApiError {
  readonly status = HttpStatus.NOT_FOUND;
  constructor(
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export class PayloadTooLargeError extends ApiError {
  readonly status = HttpStatus.PAYLOAD_TOO_LARGE;
  readonly errorCode = 'PAYLOAD_TOO_LARGE';
}

export class ServiceUnavailableError extends ApiError {
  readonly status = HttpStatus.SERVICE_UNAVAILABLE;
  readonly errorCode = 'SERVICE_UNAVAILABLE';
}

export class RateLimitedError extends ApiError {
  readonly status = HttpStatus.TOO_MANY_REQUESTS;
  readonly errorCode = 'RATE_LIMITED';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(retryAfterSeconds: number) {
    super('Too many requests; retry later');
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
}
