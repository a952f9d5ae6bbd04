import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AUDIT_ACTIONS, UnauthenticatedError } from '../common';
import { IS_PUBLIC } from './auth.decorators';
import { TokenRejectedError, TokenService } from './token.service';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i;

const MESSAGES = {
  TOKEN_MISSING: 'A bearer token is required',
  TOKEN_INVALID: 'The bearer token is invalid',
  TOKEN_EXPIRED: 'The bearer token has expired',
} as const;
type TokenDenial = keyof typeof MESSAGES;

/** Runs first on every route: no valid token, no entry. The refusal is a denial, recorded where it is answered. */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const request = context.switchToHttp().getRequest<Request>();
    const denial = this.authenticate(request);
    if (!denial) {
      return true;
    }
    throw new UnauthenticatedError(MESSAGES[denial]).deniedAs({ action: AUDIT_ACTIONS.authenticate, reason: denial });
  }

  /** Puts the officer on the request, or says why it cannot. */
  private authenticate(request: Request): TokenDenial | null {
    const header = request.get('authorization');
    if (!header) {
      return 'TOKEN_MISSING';
    }
    const token = BEARER.exec(header)?.[1];
    if (!token) {
      return 'TOKEN_INVALID';
    }
    try {
      request.officer = this.tokens.verify(token);
      return null;
    } catch (error) {
      if (error instanceof TokenRejectedError) {
        return error.reason;
      }
      throw error;
    }
  }
}
