import { HttpStatus } from '@nestjs/common';
import { AuditedDenial } from '../common';
import type { DecommissionRequestDenialReason } from './assets.vocabulary';

export const AUTHORIZED_BY_IS_CALLER_MESSAGE = 'authorized_by must name another officer than the caller: a decommission or a recommission needs a second officer';

/** DECOMMISSION_APPROVAL=required: the caller named themselves as the officer who approves. */
export class AuthorizedByIsCallerError extends AuditedDenial {
  readonly status = HttpStatus.UNPROCESSABLE_ENTITY;
  readonly errorCode = 'AUTHORIZED_BY_IS_CALLER';
  readonly denialReason: DecommissionRequestDenialReason = 'AUTHORIZED_BY_IS_CALLER';

  constructor() {
    super(AUTHORIZED_BY_IS_CALLER_MESSAGE);
  }
}

/** A second request for an asset while one is pending, named so the caller can find it. */
export class DecommissionRequestPendingError extends AuditedDenial {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_PENDING';
  readonly denialReason: DecommissionRequestDenialReason = 'DECOMMISSION_REQUEST_PENDING';

  constructor(assetId: string, pendingRequestId: string) {
    super(`Asset ${assetId} already has a pending decommission request: ${pendingRequestId}`);
  }
}

export class DecommissionRequestNotFoundError extends AuditedDenial {
  readonly status = HttpStatus.NOT_FOUND;
  readonly errorCode = 'DECOMMISSION_REQUEST_NOT_FOUND';
  readonly denialReason: DecommissionRequestDenialReason = 'DECOMMISSION_REQUEST_NOT_FOUND';

  constructor(requestId: string) {
    super(`Decommission request ${requestId} not found`);
  }
}

export const NOT_AUTHORIZING_OFFICER_MESSAGE = 'Only the officer named in the request as authorized_by may approve it';
export const NOT_REJECTING_OFFICER_MESSAGE = 'Only the officer named in the request as authorized_by, or an officer of clearance 9 or higher, may reject it';
export const NOT_REQUESTER_MESSAGE = 'Only the officer who made the request may withdraw it';

/** A decision on a request by an officer it does not name for that decision; recorded on the request's asset (none for a request of several). */
export class DecommissionRequestForbiddenError extends AuditedDenial {
  readonly status = HttpStatus.FORBIDDEN;
  readonly errorCode = 'DECOMMISSION_REQUEST_FORBIDDEN';

  constructor(
    readonly denialReason: Extract<DecommissionRequestDenialReason, 'NOT_AUTHORIZING_OFFICER' | 'NOT_REQUESTER'>,
    message: string,
    override readonly deniedAssetId: string | undefined,
  ) {
    super(message);
  }
}

export const NOT_PENDING_MESSAGE = 'Decommission request is no longer pending';

/** Approved, rejected or withdrawn: decided once, for good. Recorded on the request's asset (none for a request of several). */
export class DecommissionRequestNotPendingError extends AuditedDenial {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_NOT_PENDING';
  readonly denialReason: DecommissionRequestDenialReason = 'DECOMMISSION_REQUEST_NOT_PENDING';

  constructor(
    state: string,
    override readonly deniedAssetId: string | undefined,
  ) {
    super(`${NOT_PENDING_MESSAGE}: it was ${state}`);
  }
}

/** Recorded on the request's asset (none for a request of several). */
export class DecommissionRequestExpiredError extends AuditedDenial {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_EXPIRED';
  readonly denialReason: DecommissionRequestDenialReason = 'DECOMMISSION_REQUEST_EXPIRED';

  constructor(
    expiresAt: string,
    override readonly deniedAssetId: string | undefined,
  ) {
    super(`Decommission request expired at ${expiresAt}; make a new one`);
  }
}

export const requestLimitMessage = (limit: number) =>
  `The caller already has ${limit} pending decommission requests, the most one officer may hold; one must be approved, rejected, withdrawn or expire first`;

/**
 * The officer already holds DECOMMISSION_REQUESTS_PER_OFFICER pending requests: one officer must not
 * hold every asset. Retry-After: until the oldest of them expires, when its place frees at the latest.
 */
export class DecommissionRequestLimitError extends AuditedDenial {
  readonly status = HttpStatus.TOO_MANY_REQUESTS;
  readonly errorCode = 'DECOMMISSION_REQUEST_LIMIT';
  readonly denialReason: DecommissionRequestDenialReason = 'DECOMMISSION_REQUEST_LIMIT';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(limit: number, retryAfterSeconds: number) {
    super(requestLimitMessage(limit));
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
}
