import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, beforeEach, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { ShownAuditEvent } from '../../audit';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../../database';
import { Metrics } from '../../observability';
import { DeliveryFeedsRepository } from './delivery-feeds.repository';
import { DeliveryPace } from './delivery-pace';
import { FeedRunner, GROUP_MAX, type RunnerContext } from './feed-runner';
import type { AttemptResult, FeedSender } from './feed-sender';

const OWNER = 'this-instance';
const event = (id: number) => ({ id, action: id % 2 === 0 ? 'asset.decommission' : 'asset.read', occurred_at: new Date(Date.now() - 1_000).toISOString() }) as ShownAuditEvent;

/** A receiver scripted per event: the results of its attempts, in turn, then delivered. */
class ScriptedSender implements FeedSender {
  readonly sent: number[] = [];
  closed = false;
  gone = false;

  constructor(
    private readonly failures: Map<number, number> = new Map(),
    private readonly skipped: Set<number> = new Set(),
    readonly turnsFailing = true,
  ) {}

  refresh(): Promise<boolean> {
    return Promise.resolve(!this.gone);
  }

  takes(shown: ShownAuditEvent): boolean {
    return !this.skipped.has(shown.id);
  }

  readonly sentAt: number[] = [];

  send(shown: ShownAuditEvent): Promise<AttemptResult> {
    this.sent.push(shown.id);
    this.sentAt.push(performance.now());
    const left = this.failures.get(shown.id) ?? 0;
    if (left > 0) {
      this.failures.set(shown.id, left - 1);
      return Promise.resolve({ delivered: false, status: 500, error: 'HTTP 500' });
    }
    return Promise.resolve({ delivered: true, status: 204 });
  }

  close(): void {
    this.closed = true;
  }
}

/** The real repository, its cursor writes counted, each made `delayMs` slower (a busy database's), the first `failures` of them failing. */
class WatchedFeedsRepository extends DeliveryFeedsRepository {
  writes = 0;

  constructor(
    db: Kysely<DB>,
    private readonly delayMs: number,
    private failures = 0,
  ) {
    super(db, new TransactionRunner(db));
  }

  override async advance(...args: Parameters<DeliveryFeedsRepository['advance']>): Promise<boolean> {
    this.writes++;
    await sleep(this.delayMs);
    if (this.failures-- > 0) {
      throw new Error('database unavailable');
    }
    return super.advance(...args);
  }
}

describe('FeedRunner', () => {
  let db: Kysely<DB>;
  let feeds: DeliveryFeedsRepository;
  let chain: ShownAuditEvent[];
  let warnings: string[];
  let context: RunnerContext;

  beforeEach(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    feeds = new DeliveryFeedsRepository(db, new TransactionRunner(db));
    const now = new Date().toISOString();
    await db.insertInto('delivery_feeds').values({ feed_id: 'hook', kind: 'webhook', state: 'active', cursor: 0, created_at: now, updated_at: now }).execute();
    chain = [1, 2, 3, 4, 5, 6].map(event);
    warnings = [];
    context = {
      owner: OWNER,
      feeds,
      events: { after: (afterId: number, limit: number) => Promise.resolve(chain.filter((shown) => shown.id > afterId).slice(0, limit)) },
      pace: new DeliveryPace({ atCapacity: false }),
      metrics: new Metrics(db),
      config: { maxAttempts: 3, retryBaseMs: 1 },
      logger: { warn: (message: string) => warnings.push(message) },
    };
  });
  after(() => db.destroy());

  const feed = () => db.selectFrom('delivery_feeds').selectAll().where('feed_id', '=', 'hook').executeTakeFirstOrThrow();
  const attempts = () => db.selectFrom('delivery_attempts').select(['event_id', 'attempt', 'status', 'error']).orderBy('id').execute();
  const held = async () => (await feeds.takeLeases(OWNER, ['webhook'], 60_000))[0];

  /** Runs the runner until `done` holds, then stops it. */
  async function runUntil(runner: FeedRunner, done: () => Promise<boolean>): Promise<void> {
    const running = runner.run();
    for (let waited = 0; !(await done()) && waited < 5_000; waited += 10) {
      await sleep(10);
    }
    runner.stop();
    await running;
  }

  it('delivers in chain order, passes over what the feed does not take, retries a failure before anything after it, and moves the cursor', async () => {
    const sender = new ScriptedSender(new Map([[4, 2]]), new Set([3]));
    await runUntil(new FeedRunner(await held(), sender, context), async () => (await feed()).cursor === 6);
    assert.deepEqual(sender.sent, [1, 2, 4, 4, 4, 5, 6]);
    assert.deepEqual(
      (await attempts()).filter((row) => row.event_id === 4),
      [
        { event_id: 4, attempt: 1, status: 500, error: 'HTTP 500' },
        { event_id: 4, attempt: 2, status: 500, error: 'HTTP 500' },
        { event_id: 4, attempt: 3, status: 204, error: null },
      ],
    );
    const row = await feed();
    assert.deepEqual([row.attempts, row.last_error], [0, null]);
    assert.ok(sender.closed);
  });

  it('asks the pace before every send, retries included, and waits as long as it says', async () => {
    const GAP_MS = 10;
    let asked = 0;
    context.pace = {
      waitBeforeSendMs: () => {
        asked++;
        return GAP_MS;
      },
    };
    const sender = new ScriptedSender(new Map([[4, 1]]));
    await runUntil(new FeedRunner(await held(), sender, context), async () => (await feed()).cursor === 6);
    assert.deepEqual(sender.sent, [1, 2, 3, 4, 4, 5, 6]);
    assert.equal(asked, sender.sent.length);
    // Timers fire late, never early: the sends are at least the pace's gap apart, whatever the load.
    const gaps = sender.sentAt.slice(1).map((time, index) => time - sender.sentAt[index]);
    assert.ok(Math.min(...gaps) >= GAP_MS - 1, `sends ${gaps.map((gap) => gap.toFixed(1)).join(', ')} ms apart`);
  });

  it('turns the feed failing after the most attempts, stops there with a warning, and a resumed feed starts again from the same event', async () => {
    const sender = new ScriptedSender(new Map([[2, 3]]));
    await new FeedRunner(await held(), sender, context).run();
    assert.deepEqual(sender.sent, [1, 2, 2, 2]);
    const row = await feed();
    assert.deepEqual([row.state, row.cursor, row.attempts, row.last_error], ['failing', 1, 3, 'HTTP 500']);
    assert.match(warnings.join('\n'), /feed hook is failing: 3 failed attempts at event 2/);

    await db.updateTable('delivery_feeds').set({ state: 'active', attempts: 0 }).execute();
    const resumed = new ScriptedSender();
    await runUntil(new FeedRunner(await held(), resumed, context), async () => (await feed()).cursor === 6);
    assert.deepEqual(resumed.sent, [2, 3, 4, 5, 6]);
  });

  it('reports its lag while an event waits for its retry: the events behind the head, and the age of the oldest not delivered', async () => {
    context.config = { maxAttempts: 10, retryBaseMs: 60_000 };
    const runner = new FeedRunner(await held(), new ScriptedSender(new Map([[3, 1]])), context);
    await runUntil(runner, async () => (await feed()).attempts === 1);
    const lag = runner.lag(6, Date.now());
    assert.equal(lag.events, 4, 'events 3 to 6');
    assert.ok(lag.seconds >= 1 && lag.seconds < 10, `${lag.seconds} s: event 3 was placed a second ago`);
  });

  it('goes on retrying past the most attempts a feed whose sender never turns failing (syslog)', async () => {
    const sender = new ScriptedSender(new Map([[2, 5]]), new Set(), false);
    await runUntil(new FeedRunner(await held(), sender, context), async () => (await feed()).cursor === 6);
    assert.deepEqual(sender.sent, [1, 2, 2, 2, 2, 2, 2, 3, 4, 5, 6]);
    assert.equal((await feed()).state, 'active');
    assert.deepEqual(warnings, []);
  });

  it('pauses when the database fails it, and then goes on from its cursor', async () => {
    let failures = 1;
    const after = context.events.after;
    context.events = { after: (afterId, limit) => (failures-- > 0 ? Promise.reject(new Error('database unavailable')) : after(afterId, limit)) };
    const sender = new ScriptedSender();
    await runUntil(new FeedRunner(await held(), sender, context), async () => (await feed()).cursor === 6);
    assert.deepEqual(sender.sent, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(warnings, ['feed hook: delivery paused for 1000 ms: database unavailable']);
  });

  it('keeps its deliveries in groups: a few writes for many events, and never more than GROUP_MAX sent past what the database holds', async () => {
    chain = Array.from({ length: 450 }, (_, index) => event(index + 1));
    const watched = new WatchedFeedsRepository(db, 20);
    context.feeds = watched;
    let mostAhead = 0;
    const sender = new (class extends ScriptedSender {
      override async send(shown: ShownAuditEvent): Promise<AttemptResult> {
        mostAhead = Math.max(mostAhead, shown.id - (await feed()).cursor);
        return super.send(shown);
      }
    })();
    await runUntil(new FeedRunner(await held(), sender, context), async () => (await feed()).cursor === 450);
    assert.equal((await attempts()).length, 450, 'every delivery kept');
    assert.ok(watched.writes <= 450 / 25, `${watched.writes} writes for 450 deliveries`);
    assert.ok(mostAhead <= GROUP_MAX, `${mostAhead} events sent past the stored cursor, the one in flight included`);
  });

  it('writes the last group when it stops, before the lease is handed back', async () => {
    const sender = new ScriptedSender();
    const runner = new FeedRunner(await held(), sender, context);
    const running = runner.run();
    for (let waited = 0; sender.sent.length < 6 && waited < 5_000; waited++) {
      await sleep(1);
    }
    runner.stop();
    await running;
    assert.equal((await feed()).cursor, 6);
    assert.equal((await attempts()).length, 6);
  });

  it('sends a group again when its write fails: nothing is passed that the database does not hold', async () => {
    context.feeds = new WatchedFeedsRepository(db, 0, 1);
    const sender = new ScriptedSender();
    await runUntil(new FeedRunner(await held(), sender, context), async () => (await feed()).cursor === 6);
    assert.deepEqual(sender.sent, [1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(warnings, ['feed hook: delivery paused for 1000 ms: database unavailable']);
  });

  it('stops, writing nothing, once another instance holds the lease', async () => {
    const first = await held();
    await db.updateTable('delivery_feeds').set({ lease_owner: 'another-instance' }).execute();
    const sender = new ScriptedSender();
    await new FeedRunner(first, sender, context).run();
    assert.deepEqual(sender.sent, [1, 2, 3, 4, 5, 6], 'one group, whose cursor write was refused: then it stops');
    assert.equal((await feed()).cursor, 0);
    assert.deepEqual(await attempts(), []);
  });

  it('stops when the feed is gone, and reads new events when woken', async () => {
    const sender = new ScriptedSender();
    const runner = new FeedRunner(await held(), sender, context);
    const running = runner.run();
    for (let waited = 0; (await feed()).cursor < 6 && waited < 5_000; waited += 10) {
      await sleep(10);
    }
    chain.push(event(7));
    runner.wake();
    for (let waited = 0; (await feed()).cursor < 7 && waited < 5_000; waited += 10) {
      await sleep(10);
    }
    assert.deepEqual(runner.lag(9, Date.now()), { feed: 'hook', events: 2, seconds: 0 });
    sender.gone = true;
    chain.push(event(8));
    runner.wake();
    await running;
    assert.deepEqual(sender.sent, [1, 2, 3, 4, 5, 6, 7]);
  });
});
