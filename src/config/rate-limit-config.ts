import { IsIn, IsOptional, Matches } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests of any kind one client may send a minute. */
  requestsPerMinute: number;
  /** Refused requests (failed authentication, denied decommissions, ...) one client may make a minute. */
  denialsPerMinute: number;
  /** IPv6 clients are counted by network of this prefix length: one customer holds a whole /64. */
  ipv6Prefix: number;
  /** Counters live here when set, shared by every instance; otherwise in each instance's memory. */
  redisUrl?: string;
}

export class RateLimitVariables {
  @IsOptional()
  @IsIn(['true', 'false'])
  RATE_LIMIT_ENABLED?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000_000)
  RATE_LIMIT_REQUESTS_PER_MINUTE?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(16, 128)
  RATE_LIMIT_IPV6_PREFIX?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000_000)
  RATE_LIMIT_DENIALS_PER_MINUTE?: number;

  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must look like redis://host:6379' })
  REDIS_URL?: string;
}

export function rateLimitConfig(vars: RateLimitVariables): RateLimitConfig {
  return {
    enabled: vars.RATE_LIMIT_ENABLED !== 'false',
    requestsPerMinute: vars.RATE_LIMIT_REQUESTS_PER_MINUTE ?? 1_200,
    denialsPerMinute: vars.RATE_LIMIT_DENIALS_PER_MINUTE ?? 30,
    ipv6Prefix: vars.RATE_LIMIT_IPV6_PREFIX ?? 64,
    redisUrl: vars.REDIS_URL,
  };
}
