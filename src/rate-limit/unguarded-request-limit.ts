import { Inject, Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, normalizeIp, type ThrottlerStorage } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError, ValidationFailedError } from '../common';
import { RATE_LIMIT_CONFIG, type RateLimitConfig, SERVER_CONFIG, type ServerConfig } from '../config';
import { MINUTE_MS } from './denial-limiter';
import { FORGED_FORWARDED_FOR, forwardsForgedAddresses } from './forwarded-for.guard';

/** The request limit's throttler: one counter a client, shared by every route. */
export const REQUEST_THROTTLER = 'default';

/** The counter of a client (its address, or its IPv6 network) under the request limit. */
export const requestCounterKey = (client: string): string => `${REQUEST_THROTTLER}:${client}`;

/**
 * The request limit for what Express serves itself, which no guard sees (Swagger UI's files and the
 * OpenAPI document): each request counts against the client's one budget, the API's, and past it is
 * answered 429 with Retry-After, as the throttler answers on the API's routes. A forged
 * X-Forwarded-For is refused first, as ForwardedForGuard refuses it there: each would be a fresh budget.
 */
@Injectable()
export class UnguardedRequestLimit {
  private readonly trusting: boolean;

  constructor(
    @Inject(RATE_LIMIT_CONFIG) private readonly config: RateLimitConfig,
    @Inject(SERVER_CONFIG) server: ServerConfig,
    @InjectThrottlerStorage() private readonly counters: ThrottlerStorage,
  ) {
    this.trusting = server.trustProxy !== 0;
  }

  /** Express middleware: counts the request, then passes it on or refuses it through the error handler. */
  async count(req: Request, res: Response, next: NextFunction): Promise<void> {
    const { enabled, requestsPerMinute, ipv6Prefix } = this.config;
    if (forwardsForgedAddresses(req, this.trusting)) {
      next(new ValidationFailedError(FORGED_FORWARDED_FOR));
      return;
    }
    if (!enabled) {
      next();
      return;
    }
    try {
      const key = requestCounterKey(normalizeIp(req.ip ?? '', ipv6Prefix));
      const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = await this.counters.increment(key, MINUTE_MS, requestsPerMinute, MINUTE_MS, REQUEST_THROTTLER);
      if (isBlocked) {
        next(new RateLimitedError(timeToBlockExpire));
        return;
      }
      res.setHeader('X-RateLimit-Limit', requestsPerMinute);
      res.setHeader('X-RateLimit-Remaining', Math.max(0, requestsPerMinute - totalHits));
      res.setHeader('X-RateLimit-Reset', timeToExpire);
      next();
    } catch (error) {
      next(error);
    }
  }
}
