import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { Span } from '../common';
import { RATE_LIMIT_CONFIG, type RateLimitConfig } from '../config';

/**
 * The global request limit: Nest's ThrottlerGuard when RATE_LIMIT_ENABLED, otherwise nothing at all.
 * The throttler, asked to skip, still reads each route's metadata and answers through two promises on
 * every request.
 */
@Injectable()
export class RequestLimitGuard implements CanActivate {
  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    private readonly throttler: ThrottlerGuard,
  ) {}

  @Span()
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return this.config.enabled ? this.throttler.canActivate(context) : true;
  }
}
