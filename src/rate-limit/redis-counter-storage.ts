import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { ServiceUnavailableError } from '../common';

/**
 * One hit, counted atomically, so instances sharing the counters never both let through the hit past the
 * limit. KEYS: the window's hit count, the block. ARGV: ttl, limit, block duration (ms). While blocked a
 * hit is refused and not counted; the count then expires with the block (at the same moment: time stands
 * still within a script), so the block's end starts a fresh window, as in @nestjs/throttler's in-memory
 * storage. Replies [hits, ms to the window's end, blocked (0 or 1), ms to the block's end].
 */
const COUNT_HIT = `
local blockedFor = redis.call('PTTL', KEYS[2])
if blockedFor > 0 then
  return { tonumber(redis.call('GET', KEYS[1]) or 0), math.max(redis.call('PTTL', KEYS[1]), 0), 1, blockedFor }
end
local hits = redis.call('INCR', KEYS[1])
local windowFor = redis.call('PTTL', KEYS[1])
if windowFor < 0 then
  windowFor = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], windowFor)
end
if hits > tonumber(ARGV[2]) then
  local blockDuration = tonumber(ARGV[3])
  redis.call('SET', KEYS[2], 1, 'PX', blockDuration)
  redis.call('PEXPIRE', KEYS[1], blockDuration)
  return { hits, blockDuration, 1, blockDuration }
end
return { hits, windowFor, 0, 0 }
`;

type CountingRedis = Redis & {
  countHit(hitsKey: string, blockKey: string, ttl: number, limit: number, blockDuration: number): Promise<[number, number, number, number]>;
};

/**
 * Rate-limit counters in Redis, shared by every instance. A Redis that cannot answer within a second
 * turns into 503s rather than hung requests or 500s. The client's errors are logged as one line when
 * Redis becomes unreachable and one when it is back, never as ioredis's stack traces on stderr.
 */
export class RedisCounterStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger('RateLimitStore');
  private readonly redis: CountingRedis;
  private reachable = true;

  constructor(url: string) {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 });
    // defineCommand sends the script once and then only its SHA, and adds the method typed above.
    redis.defineCommand('countHit', { numberOfKeys: 2, lua: COUNT_HIT });
    this.redis = redis as CountingRedis;
    // A listener of its own keeps ioredis from printing each connection error with its stack.
    this.redis.on('error', (error: Error) => this.changeState(false, error.message));
    this.redis.on('ready', () => this.changeState(true));
  }

  /** Connected and ready for commands: readiness fails while it is not, as every limited request would. */
  isReachable(): boolean {
    return this.redis.status === 'ready';
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): ReturnType<ThrottlerStorage['increment']> {
    // One hash tag for both keys: a script's keys must share a slot on a Redis Cluster.
    const counter = `{${key}:${throttlerName}}`;
    let reply: [number, number, number, number];
    try {
      reply = await this.redis.countHit(`${counter}:hits`, `${counter}:blocked`, ttl, limit, blockDuration);
    } catch {
      throw new ServiceUnavailableError('The service is temporarily unavailable');
    }
    const [totalHits, windowMs, blocked, blockMs] = reply;
    return { totalHits, timeToExpire: seconds(windowMs), isBlocked: blocked === 1, timeToBlockExpire: seconds(blockMs) };
  }

  onModuleDestroy(): void {
    this.redis.disconnect(false);
  }

  private changeState(reachable: boolean, reason?: string): void {
    if (reachable === this.reachable) {
      return;
    }
    this.reachable = reachable;
    if (reachable) {
      this.logger.log('Redis (the rate-limit store) is reachable again');
    } else {
      this.logger.error(`Redis (the rate-limit store) is unreachable: ${reason}; limited requests are answered 503 until it is back`);
    }
  }
}

/** The throttler speaks whole seconds (Retry-After, X-RateLimit-Reset), rounded up so a client never retries early. */
const seconds = (ms: number) => Math.ceil(ms / 1000);
