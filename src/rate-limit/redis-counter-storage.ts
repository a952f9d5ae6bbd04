import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { ServiceUnavailableError } from '../common';

/**
 * Rate-limit counters in Redis, shared by every instance. A Redis that cannot answer within a second
 * turns into 503s rather than hung requests or 500s. The client's errors are logged as one line when
 * Redis becomes unreachable and one when it is back, never as ioredis's stack traces on stderr.
 */
export class RedisCounterStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger('RateLimitStore');
  private reachable = true;

  constructor(url: string) {
    super(new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 }));
    // A listener of its own keeps ioredis from printing each connection error with its stack.
    this.redis.on('error', (error: Error) => this.changeState(false, error.message));
    this.redis.on('ready', () => this.changeState(true));
  }

  /** Connected and ready for commands: readiness fails while it is not, as every limited request would. */
  isReachable(): boolean {
    return this.redis.status === 'ready';
  }

  override async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): ReturnType<ThrottlerStorage['increment']> {
    try {
      return await super.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch {
      throw new ServiceUnavailableError('The service is temporarily unavailable');
    }
  }

  override onModuleDestroy(): void {
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
