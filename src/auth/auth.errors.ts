import { HttpStatus } from '@nestjs/common';
import { AuditedDenial } from '../common';
import { AUTH_ACTIONS, CLEARANCE_INSUFFICIENT, type TokenDenialReason } from './auth.vocabulary';

/** 401 without a valid token: recorded under auth.authenticate on every route, with no actor. */
export class TokenRefusedError extends AuditedDenial {
  readonly status = HttpStatus.UNAUTHORIZED;
  readonly errorCode = 'UNAUTHENTICATED';
  override readonly headers = { 'WWW-Authenticate': 'Bearer' };
  override readonly deniedAction = AUTH_ACTIONS.authenticate;

  constructor(
    readonly denialReason: TokenDenialReason,
    message: string,
  ) {
    super(message);
  }
}

/** What a cleared route answers below its level, whatever its error: a denial whose reason is CLEARANCE_INSUFFICIENT. */
export type ClearanceDenial = AuditedDenial & { readonly denialReason: typeof CLEARANCE_INSUFFICIENT };

/** 403 below a route's clearance, recorded under the route's action: the default refusal of @RequiresClearance. */
export class ClearanceInsufficientError extends AuditedDenial implements ClearanceDenial {
  readonly status = HttpStatus.FORBIDDEN;
  readonly errorCode = 'CLEARANCE_INSUFFICIENT';
  readonly denialReason = CLEARANCE_INSUFFICIENT;
}
