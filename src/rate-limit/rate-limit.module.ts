import { Module } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { RATE_LIMITED_MESSAGE } from '../common';
import { RATE_LIMIT_CONFIG, type RateLimitConfig } from '../config';
import { DenialLimiter, MINUTE_MS } from './denial-limiter';
import { ForwardedForGuard } from './forwarded-for.guard';
import { LimitStoreHealth } from './limit-store-health';
import { RedisCounterStorage } from './redis-counter-storage';
import { RequestLimitGuard } from './request-limit.guard';
import { REQUEST_THROTTLER, requestCounterKey, UnguardedRequestLimit } from './unguarded-request-limit';

/**
 * Per-client limits: every request counts against a generous limit (RequestLimitGuard, the app's first
 * global guard, so it runs before the token is checked; UnguardedRequestLimit where Express answers
 * without a guard), and refusals against a much tighter one (DenialLimiter, used by
 * the audit trail). The client is `req.ip`, under TRUST_PROXY, and for IPv6 its network of
 * RATE_LIMIT_IPV6_PREFIX bits. The request limit keys on the address, not on the token's subject: it
 * runs before the token is checked, and an unchecked subject would be a fresh budget for the asking.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [RATE_LIMIT_CONFIG],
      useFactory: (rateLimit: RateLimitConfig) => ({
        throttlers: [{ name: REQUEST_THROTTLER, ttl: MINUTE_MS, limit: rateLimit.requestsPerMinute }],
        // One budget per client for every route: the throttler's own key names the handler as well.
        generateKey: (_context, client) => requestCounterKey(client),
        ipv6SubnetPrefix: rateLimit.ipv6Prefix,
        errorMessage: RATE_LIMITED_MESSAGE,
        storage: rateLimit.redisUrl ? new RedisCounterStorage(rateLimit.redisUrl) : undefined,
      }),
    }),
  ],
  providers: [ThrottlerGuard, ForwardedForGuard, RequestLimitGuard, DenialLimiter, LimitStoreHealth, UnguardedRequestLimit],
  exports: [ForwardedForGuard, RequestLimitGuard, DenialLimiter, LimitStoreHealth, UnguardedRequestLimit],
})
export class RateLimitModule {}
