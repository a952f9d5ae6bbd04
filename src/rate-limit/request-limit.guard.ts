import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { Span } from '../common';
import { APP_CONFIG, type AppConfig } from '../config';

/**
 * The global request limit: Nest's ThrottlerGuard when RATE_LIMIT_ENABLED, otherwise nothing at all.
 * The throttler, asked to skip, still reads each route's metadata and answers through two promises on
 * every request.
 */
@Injectable()
export class RequestLimitGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly throttler: ThrottlerGuard,
  ) {}

  @Span()
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return this.config.rateLimit.enabled ? this.throttler.canActivate(context) : true;
  }
}
