import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig } from '.';

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, resolve('/srv/fleet-registry'));

describe('loadAppConfig: IDEMPOTENCY_TTL', () => {
  it('keeps answers 24 hours by default, and for the duration it names', () => {
    assert.equal(load({}).idempotency.ttlSeconds, 86_400);
    assert.equal(load({ IDEMPOTENCY_TTL: '90m' }).idempotency.ttlSeconds, 5_400);
    assert.equal(load({ IDEMPOTENCY_TTL: '30d' }).idempotency.ttlSeconds, 2_592_000);
  });

  it('refuses a value that is no duration with its unit, or one over 30 days, naming the variable', () => {
    for (const value of ['24', '0h', '31d', 'forever']) {
      assertRefused(load, { IDEMPOTENCY_TTL: value }, 'IDEMPOTENCY_TTL');
    }
  });
});
