import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RETRY_CAP_MS } from '../../config';
import { retryDelayMs } from './retry-delay';

describe('retryDelayMs', () => {
  it('doubles from the base with each failed attempt, between half and all of the doubled delay', () => {
    assert.deepEqual(
      [1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1_000, () => 1)),
      [1_000, 2_000, 4_000, 8_000],
    );
    assert.deepEqual(
      [1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, 1_000, () => 0)),
      [500, 1_000, 2_000, 4_000],
    );
  });

  it('never waits longer than the cap, however many attempts failed', () => {
    assert.equal(retryDelayMs(9, 1_000, () => 1), 256_000);
    assert.equal(retryDelayMs(10, 1_000, () => 1), RETRY_CAP_MS);
    assert.equal(retryDelayMs(1_000, 600_000, () => 1), RETRY_CAP_MS);
    assert.equal(retryDelayMs(1_000, 1_000, () => 0), RETRY_CAP_MS / 2);
  });

  it('spreads the retries of feeds that failed together', () => {
    const delays = new Set(Array.from({ length: 20 }, () => retryDelayMs(5, 1_000)));
    assert.ok(delays.size > 1, 'jittered');
    assert.ok([...delays].every((delay) => delay >= 8_000 && delay <= 16_000));
  });
});
