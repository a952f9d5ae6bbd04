import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig: rate limits', () => {
  describe('rate limits', () => {
    it('limits by default, with counts a minute and Redis when REDIS_URL names one', () => {
      const sut = load({ RATE_LIMIT_REQUESTS_PER_MINUTE: '50', RATE_LIMIT_DENIALS_PER_MINUTE: '5', RATE_LIMIT_IPV6_PREFIX: '56', REDIS_URL: 'redis://127.0.0.1:6379' });

      assert.deepEqual(sut.rateLimit, { enabled: true, requestsPerMinute: 50, denialsPerMinute: 5, ipv6Prefix: 56, redisUrl: 'redis://127.0.0.1:6379' });
      assert.equal(load({ RATE_LIMIT_ENABLED: 'false' }).rateLimit.enabled, false);
    });

    it('refuses counts that are not positive integers and a REDIS_URL that is not redis://', () => {
      for (const value of ['0', '-5', '1.5', 'lots']) {
        refuses({ RATE_LIMIT_REQUESTS_PER_MINUTE: value }, 'RATE_LIMIT_REQUESTS_PER_MINUTE');
        refuses({ RATE_LIMIT_DENIALS_PER_MINUTE: value }, 'RATE_LIMIT_DENIALS_PER_MINUTE');
      }
      refuses({ RATE_LIMIT_ENABLED: 'no' }, 'RATE_LIMIT_ENABLED');
      for (const value of ['15', '129', '64.5']) {
        refuses({ RATE_LIMIT_IPV6_PREFIX: value }, 'RATE_LIMIT_IPV6_PREFIX');
      }
      refuses({ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL');
    });
  });
});
