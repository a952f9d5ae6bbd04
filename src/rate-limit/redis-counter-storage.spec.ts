import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@nestjs/common';
import { ServiceUnavailableError } from '../common';
import { assertRedisAnswers, REDIS_URL } from '../../test/support/redis';
import { RedisCounterStorage } from './redis-counter-storage';


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RedisCounterStorage', () => {
  const storages: RedisCounterStorage[] = [];
  const storage = () => {
    const created = new RedisCounterStorage(REDIS_URL);
    storages.push(created);
    return created;
  };
  /** A key of its own for each test, so counts never carry over between tests or runs. */
  const newKey = () => `spec:${randomUUID()}`;

  before(async () => {
    Logger.overrideLogger(false);
    await assertRedisAnswers();
  });
  after(() => storages.forEach((created) => created.onModuleDestroy()));

  it('counts the hits of a window up to the limit, with the seconds left in it', async () => {
    const sut = storage();
    const key = newKey();
    const records = [];
    for (let i = 0; i < 3; i++) {
      records.push(await sut.increment(key, 60_000, 3, 60_000, 'default'));
    }
    assert.deepEqual(
      records.map(({ totalHits, isBlocked, timeToBlockExpire }) => [totalHits, isBlocked, timeToBlockExpire]),
      [
        [1, false, 0],
        [2, false, 0],
        [3, false, 0],
      ],
    );
    assert.ok(records.every(({ timeToExpire }) => timeToExpire === 60), JSON.stringify(records));
  });

  it('blocks the hit past the limit for the block duration, without counting the hits refused meanwhile', async () => {
    const sut = storage();
    const key = newKey();
    await sut.increment(key, 60_000, 1, 30_000, 'default');
    const past = await sut.increment(key, 60_000, 1, 30_000, 'default');
    const refused = await sut.increment(key, 60_000, 1, 30_000, 'default');

    assert.deepEqual(past, { totalHits: 2, timeToExpire: 30, isBlocked: true, timeToBlockExpire: 30 });
    assert.equal(refused.isBlocked, true);
    assert.equal(refused.totalHits, 2);
    assert.ok(refused.timeToBlockExpire >= 29 && refused.timeToBlockExpire <= 30, JSON.stringify(refused));
  });

  it('starts a fresh window when the block ends', async () => {
    const sut = storage();
    const key = newKey();
    for (let i = 0; i < 5; i++) {
      await sut.increment(key, 60_000, 2, 200, 'default');
    }
    await sleep(250);

    const fresh = [await sut.increment(key, 60_000, 2, 200, 'default'), await sut.increment(key, 60_000, 2, 200, 'default')];
    assert.deepEqual(
      fresh.map(({ totalHits, isBlocked }) => [totalHits, isBlocked]),
      [
        [1, false],
        [2, false],
      ],
    );
  });

  it('starts a fresh window when the last one ends', async () => {
    const sut = storage();
    const key = newKey();
    await sut.increment(key, 200, 5, 200, 'default');
    await sut.increment(key, 200, 5, 200, 'default');
    await sleep(250);

    assert.equal((await sut.increment(key, 200, 5, 200, 'default')).totalHits, 1);
  });

  it("keeps each throttler's count apart for one key", async () => {
    const sut = storage();
    const key = newKey();
    await sut.increment(key, 60_000, 1, 60_000, 'default');
    assert.equal((await sut.increment(key, 60_000, 1, 60_000, 'default')).isBlocked, true);
    assert.deepEqual(await sut.increment(key, 60_000, 1, 60_000, 'denials'), { totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('lets exactly the limit through when two instances count the same client at once', async () => {
    const [one, two] = [storage(), storage()];
    const key = newKey();
    const records = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? one : two).increment(key, 60_000, 30, 60_000, 'default')));

    assert.equal(records.filter(({ isBlocked }) => !isBlocked).length, 30);
    assert.deepEqual(
      records
        .filter(({ isBlocked }) => !isBlocked)
        .map(({ totalHits }) => totalHits)
        .sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
  });

  it('answers 503 (ServiceUnavailableError) and reports itself unreachable while Redis does not answer', async () => {
    const sut = new RedisCounterStorage('redis://127.0.0.1:1');
    try {
      await assert.rejects(sut.increment(newKey(), 60_000, 5, 60_000, 'default'), ServiceUnavailableError);
      assert.equal(sut.isReachable(), false);
    } finally {
      sut.onModuleDestroy();
    }
  });
});
