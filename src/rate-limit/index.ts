export { DenialLimiter, type DenialVerdict } from './denial-limiter';
export { RateLimitModule } from './rate-limit.module';
export { RequestLimitGuard } from './request-limit.guard';
