import { CanActivate, ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Span } from '../common';
import { bearerTokenOf, IS_PUBLIC, isOpened, OPEN_ROUTE_SWITCHES, type RouteSwitch } from './auth.decorators';
import { TokenRefusedError } from './auth.errors';
import type { TokenDenialReason } from './auth.vocabulary';
import { TokenRejectedError, TokenService } from './token.service';

const MESSAGES = {
  TOKEN_MISSING: 'A bearer token is required',
  TOKEN_INVALID: 'The bearer token is invalid',
  TOKEN_EXPIRED: 'The bearer token has expired',
} as const satisfies Record<TokenDenialReason, string>;
type TokenDenial = keyof typeof MESSAGES;

/** Runs first on every route: no valid token, no entry. The refusal is a denial (TokenRefusedError), recorded where it is answered. */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  private readonly logger = new Logger(AuthenticationGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokenService,
    @Inject(OPEN_ROUTE_SWITCHES) private readonly open: ReadonlySet<RouteSwitch>,
  ) {}

  /** A public route, or one the deployment opened, is let through at once, without a promise for Nest to wait on. */
  @Span()
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    return isPublic || isOpened(this.reflector, context, this.open) ? true : this.checkToken(context);
  }

  private async checkToken(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const denial = await this.authenticate(request);
    if (!denial) {
      return true;
    }
    throw new TokenRefusedError(denial, MESSAGES[denial]);
  }

  /** Puts the officer on the request, or says why it cannot. */
  private async authenticate(request: Request): Promise<TokenDenial | null> {
    const header = request.get('authorization');
    if (!header) {
      return 'TOKEN_MISSING';
    }
    const token = bearerTokenOf(header);
    if (!token) {
      return 'TOKEN_INVALID';
    }
    try {
      request.officer = await this.tokens.verify(token);
      return null;
    } catch (error) {
      if (error instanceof TokenRejectedError) {
        this.logger.warn(`token refused: ${error.detail}`);
        return error.reason;
      }
      throw error;
    }
  }
}
