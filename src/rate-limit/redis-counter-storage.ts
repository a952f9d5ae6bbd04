import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { ServiceUnavailableError } from '../common';

/**
 * Rate-limit counters in Redis, shared by every instance. A Redis that cannot answer within a second
 * turns into 503s rather than hung requests or 500s.
 */
export class RedisCounterStorage extends ThrottlerStorageRedisService {
  constructor(url: string) {
    super(new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 1_000 }));
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
}
