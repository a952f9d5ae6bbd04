import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../common';

export const AUTHORIZED_BY_IS_CALLER_MESSAGE = 'authorized_by must name another officer than the caller: a decommission needs a second officer';

/** DECOMMISSION_APPROVAL=required: the caller named themselves as the officer who approves. */
export class AuthorizedByIsCallerError extends ApiError {
  readonly status = HttpStatus.UNPROCESSABLE_ENTITY;
  readonly errorCode = 'AUTHORIZED_BY_IS_CALLER';

  constructor() {
    super(AUTHORIZED_BY_IS_CALLER_MESSAGE);
  }
}

/** A second request for an asset while one is pending, named so the caller can find it. */
export class DecommissionRequestPendingError extends ApiError {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_PENDING';

  constructor(assetId: string, pendingRequestId: string) {
    super(`Asset ${assetId} already has a pending decommission request: ${pendingRequestId}`);
  }
}

export class DecommissionRequestNotFoundError extends ApiError {
  readonly status = HttpStatus.NOT_FOUND;
  readonly errorCode = 'DECOMMISSION_REQUEST_NOT_FOUND';

  constructor(requestId: string) {
    super(`Decommission request ${requestId} not found`);
  }
}

export const NOT_AUTHORIZING_OFFICER_MESSAGE = 'Only the officer named in the request as authorized_by may approve or reject it';
export const NOT_REQUESTER_MESSAGE = 'Only the officer who made the request may withdraw it';

/** A decision on a request by an officer it does not name for that decision. */
export class DecommissionRequestForbiddenError extends ApiError {
  readonly status = HttpStatus.FORBIDDEN;
  readonly errorCode = 'DECOMMISSION_REQUEST_FORBIDDEN';
}

export const NOT_PENDING_MESSAGE = 'Decommission request is no longer pending';

/** Approved, rejected or withdrawn: decided once, for good. */
export class DecommissionRequestNotPendingError extends ApiError {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_NOT_PENDING';

  constructor(state: string) {
    super(`${NOT_PENDING_MESSAGE}: it was ${state}`);
  }
}

export class DecommissionRequestExpiredError extends ApiError {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_EXPIRED';

  constructor(expiresAt: string) {
    super(`Decommission request expired at ${expiresAt}; make a new one`);
  }
}
