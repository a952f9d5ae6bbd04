import { HttpStatus } from '@nestjs/common';

/**
 * An error a client is meant to see. The global filter turns it into the
 * spec's error body; anything that is not an ApiError becomes a 500.
 */
export abstract class ApiError extends Error {
  abstract readonly status: HttpStatus;
  abstract readonly errorCode: string;
  readonly headers: Readonly<Record<string, string>> = {};
}

/**
 * An error that refuses access, and so is an audited denial by its type: no throw site can forget to
 * have it recorded. The exception filter records it, once, before it answers: with its reason, under
 * the action it names or else the one its route declares (`@RequiresClearance(level, { action })`), the
 * request's authenticated officer as actor, and the asset it names or else the one its path names.
 */
export abstract class AuditedDenial extends ApiError {
  /** Why, as the audit trail records it. */
  abstract readonly denialReason: string;
  /** The action refused, when it is not its route's: a token refusal's `auth.authenticate`, on any route. */
  readonly deniedAction?: string;
  /** The asset refused, when the path does not name it (a decommission request's decision). */
  readonly deniedAssetId?: string;
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

export class UnsupportedMediaTypeError extends ApiError {
  readonly status = HttpStatus.UNSUPPORTED_MEDIA_TYPE;
  readonly errorCode = 'UNSUPPORTED_MEDIA_TYPE';
}

export class MethodNotAllowedError extends ApiError {
  readonly status = HttpStatus.METHOD_NOT_ALLOWED;
  readonly errorCode = 'METHOD_NOT_ALLOWED';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(allowedMethods: readonly string[]) {
    super(`Method not allowed; this route allows ${allowedMethods.join(', ')}`);
    this.headers = { Allow: allowedMethods.join(', ') };
  }
}

export class ServiceUnavailableError extends ApiError {
  readonly status = HttpStatus.SERVICE_UNAVAILABLE;
  readonly errorCode = 'SERVICE_UNAVAILABLE';
}

/** How long a client is asked to wait after a storage failure; readiness fails for as long after the last one. */
export const STORAGE_RETRY_SECONDS = 10;

/** The database cannot store data (disk full, read-only, I/O errors): nothing was written, retry later. */
export class StorageUnavailableError extends ApiError {
  readonly status = HttpStatus.SERVICE_UNAVAILABLE;
  readonly errorCode = 'STORAGE_UNAVAILABLE';
  override readonly headers = { 'Retry-After': String(STORAGE_RETRY_SECONDS) };
}

export const RATE_LIMITED_MESSAGE = 'Too many requests; retry later';

export class RateLimitedError extends ApiError {
  readonly status = HttpStatus.TOO_MANY_REQUESTS;
  readonly errorCode = 'RATE_LIMITED';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(retryAfterSeconds: number) {
    super(RATE_LIMITED_MESSAGE);
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
}
