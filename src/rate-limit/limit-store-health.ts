import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { RedisCounterStorage } from './redis-counter-storage';

/** Whether the counters can be reached: always in memory, and with REDIS_URL while Redis is connected. */
@Injectable()
export class LimitStoreHealth {
  constructor(@InjectThrottlerStorage() private readonly counters: ThrottlerStorage) {}

  isReachable(): boolean {
    return !(this.counters instanceof RedisCounterStorage) || this.counters.isReachable();
  }
}
