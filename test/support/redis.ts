import Redis from 'ioredis';

/** The Redis the rate-limit tests share counters through. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Fails at once, saying how to start it, when no Redis answers at REDIS_URL. */
export async function assertRedisAnswers(): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    if ((await redis.ping()) !== 'PONG') {
      throw new Error('PING did not answer PONG');
    }
  } catch (error) {
    throw new Error(`Redis does not answer at ${REDIS_URL} (see ../shared/services.md to start it)`, { cause: error });
  } finally {
    redis.disconnect();
  }
}
