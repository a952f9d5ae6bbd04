import { Module } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { RATE_LIMITED_MESSAGE } from '../common';
import { APP_CONFIG, type AppConfig } from '../config';
import { DenialLimiter, MINUTE_MS } from './denial-limiter';
import { RedisCounterStorage } from './redis-counter-storage';
import { RequestLimitGuard } from './request-limit.guard';

/**
 * Per-client limits: every request counts against a generous limit (RequestLimitGuard, the app's first
 * global guard, so it runs before the token is checked), and refusals against a much tighter one (DenialLimiter, used by
 * the audit trail). The client is `req.ip`, under TRUST_PROXY.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: ({ rateLimit }: AppConfig) => ({
        throttlers: [{ name: 'default', ttl: MINUTE_MS, limit: rateLimit.requestsPerMinute }],
        errorMessage: RATE_LIMITED_MESSAGE,
        storage: rateLimit.redisUrl ? new RedisCounterStorage(rateLimit.redisUrl) : undefined,
      }),
    }),
  ],
  providers: [ThrottlerGuard, RequestLimitGuard, DenialLimiter],
  exports: [RequestLimitGuard, DenialLimiter],
})
export class RateLimitModule {}
