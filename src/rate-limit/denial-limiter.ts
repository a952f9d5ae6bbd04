import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, normalizeIp, type ThrottlerStorage } from '@nestjs/throttler';
import { RATE_LIMIT_CONFIG, type RateLimitConfig } from '../config';

export const MINUTE_MS = 60_000;

/** The reason the audit trail records the first 429 of a client's flooded window under, in place of the refusal's own. */
export const RATE_LIMITED_REASON = 'RATE_LIMITED';

export type DenialVerdict = { limited: false } | { limited: true; retryAfterSeconds: number; firstInWindow: boolean };

/**
 * Counts refused requests per client, much more tightly than requests in general: past the limit a
 * client is refused with 429 for the rest of the window. `firstInWindow` marks the first such
 * refusal, so the audit trail records a flood once rather than row by row.
 */
@Injectable()
export class DenialLimiter {
  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @InjectThrottlerStorage() private readonly counters: ThrottlerStorage,
  ) {}

  /** @param address the client's IP address; an IPv6 one counts for its whole network (RATE_LIMIT_IPV6_PREFIX) */
  async count(address: string): Promise<DenialVerdict> {
    const { enabled, denialsPerMinute, ipv6Prefix } = this.config;
    if (!enabled) {
      return { limited: false };
    }
    const client = normalizeIp(address, ipv6Prefix);
    const denials = await this.counters.increment(`denials:${client}`, MINUTE_MS, denialsPerMinute, MINUTE_MS, 'denials');
    if (!denials.isBlocked) {
      return { limited: false };
    }
    const window = Math.max(1, denials.timeToBlockExpire) * 1000;
    const notice = await this.counters.increment(`denials-noticed:${client}`, window, 1, window, 'denials-noticed');
    return { limited: true, retryAfterSeconds: denials.timeToBlockExpire, firstInWindow: !notice.isBlocked };
  }
}
