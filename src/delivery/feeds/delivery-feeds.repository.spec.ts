import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, beforeEach, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../../database';
import { ATTEMPTS_KEPT, DeliveryFeedsRepository } from './delivery-feeds.repository';

const LEASE_MS = 60_000;
const attempt = (eventId: number, number = 1, endedAt = performance.now()) => ({ eventId, attempt: number, status: 200, durationMs: 3, endedAt });

describe('DeliveryFeedsRepository (SQLite)', () => {
  let db: Kysely<DB>;
  let sut: DeliveryFeedsRepository;

  beforeEach(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    sut = new DeliveryFeedsRepository(db, new TransactionRunner(db));
    const now = new Date().toISOString();
    await db
      .insertInto('delivery_feeds')
      .values([
        { feed_id: 'hook-a', kind: 'webhook', state: 'active', cursor: 4, created_at: now, updated_at: now },
        { feed_id: 'hook-failing', kind: 'webhook', state: 'failing', cursor: 0, created_at: now, updated_at: now },
      ])
      .execute();
  });
  after(() => db.destroy());

  const feed = (feedId: string) => db.selectFrom('delivery_feeds').selectAll().where('feed_id', '=', feedId).executeTakeFirstOrThrow();
  const attemptsOf = (feedId: string) => db.selectFrom('delivery_attempts').selectAll().where('feed_id', '=', feedId).orderBy('id').execute();

  it('leases each active feed to one owner at a time, renews it for that owner, and never takes a failing one', async () => {
    const held = await sut.takeLeases('one', ['webhook'], LEASE_MS);
    assert.deepEqual(
      held.map(({ feed_id, cursor, attempts }) => ({ feed_id, cursor, attempts })),
      [{ feed_id: 'hook-a', cursor: 4, attempts: 0 }],
    );
    assert.match(held[0].now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(await sut.takeLeases('two', ['webhook'], LEASE_MS), [], 'held by one');
    assert.equal((await sut.takeLeases('one', ['webhook'], LEASE_MS)).length, 1, 'renewed');
    const { lease_owner, lease_expires_at } = await feed('hook-a');
    assert.equal(lease_owner, 'one');
    assert.ok(Date.parse(lease_expires_at ?? '') > Date.now() + LEASE_MS - 5_000);
    assert.deepEqual(await sut.takeLeases('two', ['syslog'], LEASE_MS), [], 'only the kinds asked for');
  });

  it('lets another owner take a lease once it has expired, and then fences the first one out', async () => {
    await sut.takeLeases('one', ['webhook'], 20);
    await sleep(40);
    assert.equal((await sut.takeLeases('two', ['webhook'], LEASE_MS)).length, 1);
    assert.equal(await sut.advance('hook-a', 'one', 5, [attempt(5)]), false);
    assert.equal(await sut.recordFailure('hook-a', 'one', { attempts: 1, retryInMs: 100, error: 'HTTP 500' }, attempt(5)), false);
    assert.equal((await feed('hook-a')).cursor, 4);
    assert.deepEqual(await attemptsOf('hook-a'), [], 'no attempt kept for a write refused');
    assert.equal(await sut.advance('hook-a', 'two', 5, [attempt(5)]), true);
    assert.equal((await feed('hook-a')).cursor, 5);
  });

  it('hands its leases back at shutdown, so another owner takes them at once', async () => {
    await sut.takeLeases('one', ['webhook'], LEASE_MS);
    await sut.releaseLeases('one');
    assert.equal((await sut.takeLeases('two', ['webhook'], LEASE_MS)).length, 1);
  });

  it('keeps failed attempts with their retry time, clears them on delivery, and moves the cursor with the attempt', async () => {
    await sut.takeLeases('one', ['webhook'], LEASE_MS);
    assert.equal(await sut.recordFailure('hook-a', 'one', { attempts: 1, retryInMs: 60_000, error: 'HTTP 503' }, { ...attempt(5), status: 503, error: 'HTTP 503' }), true);
    let row = await feed('hook-a');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_error, 'HTTP 503');
    assert.ok(Date.parse(row.next_attempt_at ?? '') > Date.now() + 50_000);
    assert.equal(row.cursor, 4, 'a failure moves nothing');
    const [held] = await sut.takeLeases('one', ['webhook'], LEASE_MS);
    assert.equal(held.attempts, 1);
    assert.equal(held.next_attempt_at, row.next_attempt_at);

    assert.equal(await sut.advance('hook-a', 'one', 5, [attempt(5, 2)]), true);
    row = await feed('hook-a');
    assert.deepEqual([row.cursor, row.attempts, row.next_attempt_at, row.last_error], [5, 0, null, null]);
    assert.deepEqual(
      (await attemptsOf('hook-a')).map(({ event_id, attempt, status, error }) => ({ event_id, attempt, status, error })),
      [
        { event_id: 5, attempt: 1, status: 503, error: 'HTTP 503' },
        { event_id: 5, attempt: 2, status: 200, error: null },
      ],
    );
    assert.equal(await sut.advance('hook-a', 'one', 9), true, 'events passed over by the filter: the cursor alone');
    assert.equal((await attemptsOf('hook-a')).length, 2);
  });

  it('turns a feed failing with its last error and hands its lease back; nothing takes it until it is resumed', async () => {
    await sut.takeLeases('one', ['webhook'], LEASE_MS);
    assert.equal(await sut.recordFailure('hook-a', 'one', { attempts: 3, error: 'HTTP 500' }, attempt(5, 3)), true);
    const row = await feed('hook-a');
    assert.deepEqual([row.state, row.attempts, row.last_error, row.lease_owner, row.next_attempt_at], ['failing', 3, 'HTTP 500', null, null]);
    assert.deepEqual(await sut.takeLeases('one', ['webhook'], LEASE_MS), []);
    await db.updateTable('delivery_feeds').set({ state: 'active', attempts: 0 }).where('feed_id', '=', 'hook-a').execute();
    assert.deepEqual(
      (await sut.takeLeases('two', ['webhook'], LEASE_MS)).map(({ feed_id, cursor }) => ({ feed_id, cursor })),
      [{ feed_id: 'hook-a', cursor: 4 }],
      'resumed from the same event',
    );
  });

  it('writes a group of deliveries in one step: the cursor past the last, and each attempt dated when it ended', async () => {
    await sut.takeLeases('one', ['webhook'], LEASE_MS);
    const now = performance.now();
    assert.equal(await sut.advance('hook-a', 'one', 8, [attempt(5, 1, now - 2_000), attempt(6, 1, now - 1_000), attempt(8, 1, now)]), true);
    assert.equal((await feed('hook-a')).cursor, 8);
    const rows = await attemptsOf('hook-a');
    assert.deepEqual(
      rows.map(({ event_id }) => event_id),
      [5, 6, 8],
    );
    const [first, second, last] = rows.map(({ attempted_at }) => Date.parse(attempted_at));
    assert.ok(Math.abs(last - first - 2_000) < 200, `${last - first} ms between the first and the last`);
    assert.ok(Math.abs(last - second - 1_000) < 200, `${last - second} ms between the second and the last`);
  });

  it(`keeps about the newest ${ATTEMPTS_KEPT} attempts of a feed`, async () => {
    await sut.takeLeases('one', ['webhook'], LEASE_MS);
    // In groups of 10, as a runner writes them: a group whose ids cross a multiple of 64 prunes.
    for (let eventId = 5; eventId < 5 + ATTEMPTS_KEPT + 200; eventId += 10) {
      await sut.advance('hook-a', 'one', eventId + 9, Array.from({ length: 10 }, (_, index) => attempt(eventId + index)));
    }
    const kept = await attemptsOf('hook-a');
    assert.ok(kept.length >= ATTEMPTS_KEPT && kept.length < ATTEMPTS_KEPT + 64, `${kept.length} kept`);
    assert.equal(kept[kept.length - 1].event_id, 5 + ATTEMPTS_KEPT + 199, 'the newest');
  });

  it('makes the syslog feed once, from the cursor it is first given', async () => {
    await sut.ensureSyslogFeed(42);
    await sut.ensureSyslogFeed(99);
    const row = await feed('syslog');
    assert.deepEqual([row.kind, row.state, row.cursor], ['syslog', 'active', 42]);
  });
});
