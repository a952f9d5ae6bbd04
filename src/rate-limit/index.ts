export { DenialLimiter, type DenialVerdict, RATE_LIMITED_REASON } from './denial-limiter';
export { ForwardedForGuard } from './forwarded-for.guard';
export { LimitStoreHealth } from './limit-store-health';
export { RateLimitModule } from './rate-limit.module';
export { RequestLimitGuard } from './request-limit.guard';
export { Unthrottled, UNTHROTTLED_OPERATION_EXTENSION } from './unthrottled.decorator';
export { UnguardedRequestLimit } from './unguarded-request-limit';
