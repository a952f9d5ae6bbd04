import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@nestjs/common';
import type { AuditEventsService, ShownAuditEvent } from '../../audit';
import type { DeliveryConfig } from '../../config';
import type { FeedLag, Metrics } from '../../observability';
import type { AttemptRecord, DeliveryFeedsRepository, HeldFeed } from './delivery-feeds.repository';
import type { DeliveryPace } from './delivery-pace';
import type { FeedSender } from './feed-sender';
import { retryDelayMs } from './retry-delay';

/** Events read per query. */
const BATCH = 200;
/**
 * Deliveries are kept in the database in groups: the cursor past the last of them and their attempts'
 * rows in one transaction, overlapping the next sends, once a group is this old ...
 */
export const GROUP_MS = 50;
/**
 * ... or half this many deliveries; and no event is sent while this many are not yet committed, so a
 * process killed at any moment has its successor send again at most this many events, the one in flight
 * included.
 */
export const GROUP_MAX = 100;
/** A caught-up feed reads new events at most this often however often it is woken (every commit on SQLite): each read costs the decisions a query. */
const READ_EVERY_MS = GROUP_MS;
/** After the database failed it (a query, a commit), the runner waits this long before it starts again from its cursor, doubling while it keeps failing ... */
const PAUSE_AFTER_ERROR_MS = 1_000;
/** ... up to this. */
const LONGEST_PAUSE_MS = 30_000;

/** What every runner of an instance shares. */
export interface RunnerContext {
  owner: string;
  feeds: DeliveryFeedsRepository;
  events: Pick<AuditEventsService, 'after'>;
  pace: Pick<DeliveryPace, 'waitBeforeSendMs'>;
  metrics: Metrics;
  config: Pick<DeliveryConfig, 'maxAttempts' | 'retryBaseMs'>;
  logger: Pick<Logger, 'warn'>;
}

const aborted = (error: unknown) => error instanceof Error && error.name === 'AbortError';

/**
 * Delivers one feed while this instance holds its lease: reads the events after its cursor, passes over
 * those the feed does not take, and sends the next one it takes, one at a time, in chain order. A
 * delivered event moves the cursor, in the database with its group (GROUP_MS, GROUP_MAX), and on stop
 * before the lease is handed back; a failed one is retried after a backoff, and nothing after it goes
 * first, until WEBHOOK_MAX_ATTEMPTS failed attempts turn the feed failing (when its sender `turnsFailing`:
 * a webhook). Every write names this instance as the lease's owner: one that lost the lease stops.
 */
export class FeedRunner {
  readonly feedId: string;
  private cursor: number;
  /** Failed attempts at the event after the cursor. */
  private attempts: number;
  /** When the oldest event the feed has not passed was placed; undefined when caught up. */
  private pendingSince?: string;
  /** Set by wake() and cleared before each read, so a wake that comes while reading is not lost. */
  private woken = false;
  private readonly wakes = new EventTarget();
  private readonly stopping = new AbortController();
  private readonly firstRetryInMs: number;
  /** The cursor the last group's write was given (committed or under way). */
  private handedCursor: number;
  /** The cursor the database holds, as far as this runner knows: a failed write sends again from here. */
  private storedCursor: number;
  /** Deliveries since the last group's write: their attempts, written with the cursor. */
  private group: AttemptRecord[] = [];
  /** When the cursor moved past handedCursor: the group is written GROUP_MS after. */
  private groupSince?: number;
  /**
   * The last group's write, under way while the next events are sent, or done: the writes stay in order,
   * each awaiting the one before (written()). False once the lease was lost; a failure of the database
   * surfaces where it is next awaited.
   */
  private writing: Promise<boolean> = Promise.resolve(true);
  /** Deliveries in the write under way. */
  private deliveriesInWrite = 0;
  /** When the last batch was read (performance.now()). */
  private lastReadAt = -Infinity;
  /** Batches in a row that failed on an error (a database down, a secret that no longer opens). */
  private errorsInARow = 0;

  constructor(
    feed: HeldFeed,
    private readonly sender: FeedSender,
    private readonly context: RunnerContext,
  ) {
    this.feedId = feed.feed_id;
    this.cursor = feed.cursor;
    this.handedCursor = feed.cursor;
    this.storedCursor = feed.cursor;
    this.attempts = feed.attempts;
    this.firstRetryInMs = feed.next_attempt_at === null ? 0 : Math.max(0, Date.parse(feed.next_attempt_at) - Date.parse(feed.now));
  }

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Runs until stop(), a lost lease, a deleted feed, or the feed turning failing; closes the sender then. */
  async run(): Promise<void> {
    try {
      // A feed taken over mid-backoff keeps the retry time its previous instance stored.
      await this.pause(this.firstRetryInMs);
      while (!this.stopped) {
        try {
          const caughtUp = await this.deliverBatch();
          this.errorsInARow = 0;
          if (caughtUp) {
            await this.idle();
          }
        } catch (error) {
          if (!this.stopped) {
            const pauseMs = Math.min(LONGEST_PAUSE_MS, PAUSE_AFTER_ERROR_MS * 2 ** this.errorsInARow++);
            this.context.logger.warn(`feed ${this.feedId}: delivery paused for ${pauseMs} ms: ${error instanceof Error ? error.message : String(error)}`);
            await this.pause(pauseMs);
          }
        }
      }
    } finally {
      // The last deliveries' cursor, before the dispatcher hands the lease back.
      await this.writeGroup().catch(() => false);
      this.sender.close();
    }
  }

  /** New events may have been placed: a caught-up runner reads at once. */
  wake(): void {
    this.woken = true;
    this.wakes.dispatchEvent(new Event('wake'));
  }

  /** Aborts the attempt in flight and any wait; run() ends soon after, having written nothing more but a delivery already answered. */
  stop(): void {
    this.stopping.abort();
  }

  lag(head: number, nowMs: number): FeedLag {
    return {
      feed: this.feedId,
      events: Math.max(0, head - this.cursor),
      seconds: this.pendingSince === undefined ? 0 : Math.max(0, (nowMs - Date.parse(this.pendingSince)) / 1000),
    };
  }

  /** One batch of events after the cursor; true when it found the feed caught up. */
  private async deliverBatch(): Promise<boolean> {
    this.woken = false;
    if (!(await this.sender.refresh())) {
      this.stop();
      return false;
    }
    this.lastReadAt = performance.now();
    const events = await this.context.events.after(this.cursor, BATCH);
    for (const event of events) {
      this.pendingSince = event.occurred_at;
      if (this.sender.takes(event) && !(await this.deliver(event))) {
        return false;
      }
      this.moveCursor(event.id);
      if (!(await this.writeGroupWhenDue())) {
        return false;
      }
    }
    this.pendingSince = undefined;
    return events.length < BATCH;
  }

  /** Sends `event` until it is delivered (true) or the runner stops: stopped, lease lost, feed gone or failing (false). */
  private async deliver(event: ShownAuditEvent): Promise<boolean> {
    const { feeds, metrics, config, logger, owner } = this.context;
    for (;;) {
      await this.pause(this.context.pace.waitBeforeSendMs());
      if (this.stopped) {
        return false;
      }
      const attempt = this.attempts + 1;
      const started = performance.now();
      const result = await this.sender.send(event, attempt, this.stopping.signal);
      const endedAt = performance.now();
      const record = { eventId: event.id, attempt, status: result.status, durationMs: endedAt - started, endedAt };
      if (result.delivered) {
        metrics.feedEventDelivered(this.feedId);
        this.attempts = 0;
        // Kept even when stopping: the receiver has it, and sending it again is what the cursor avoids.
        this.group.push(record);
        return true;
      }
      // The failure is counted against the event after the stored cursor: the deliveries before it first.
      if (this.stopped || !(await this.writeGroup())) {
        return false;
      }
      const failing = this.sender.turnsFailing && attempt >= config.maxAttempts;
      const retryInMs = failing ? undefined : retryDelayMs(attempt, config.retryBaseMs);
      if (!(await feeds.recordFailure(this.feedId, owner, { attempts: attempt, retryInMs, error: result.error }, { ...record, error: result.error }))) {
        this.stop();
        return false;
      }
      this.attempts = attempt;
      metrics.feedAttemptFailed(this.feedId);
      if (retryInMs === undefined) {
        logger.warn(`feed ${this.feedId} is failing: ${attempt} failed attempts at event ${event.id}, the last: ${result.error}; it stops until resumed`);
        metrics.feedTurnedFailing(this.feedId);
        this.stop();
        return false;
      }
      await this.pause(retryInMs);
      // The target may have changed meanwhile (a corrected url, a rotated secret), or the feed be gone.
      if (this.stopped || !(await this.sender.refresh())) {
        this.stop();
        return false;
      }
    }
  }

  /** The event is delivered or passed over: the cursor moves past it here, and in the database with its group. */
  private moveCursor(eventId: number): void {
    this.cursor = eventId;
    this.groupSince ??= performance.now();
  }

  private get uncommittedDeliveries(): number {
    return this.group.length + this.deliveriesInWrite;
  }

  /** Milliseconds until the group is due to be written; undefined when there is none. */
  private groupDueInMs(): number | undefined {
    return this.groupSince === undefined ? undefined : this.groupSince + GROUP_MS - performance.now();
  }

  /**
   * Starts the group's write when it is GROUP_MS old or holds half of GROUP_MAX deliveries, and waits for
   * it when GROUP_MAX are not committed; false when the lease was lost.
   */
  private async writeGroupWhenDue(): Promise<boolean> {
    if (this.uncommittedDeliveries >= GROUP_MAX) {
      return this.writeGroup();
    }
    const dueInMs = this.groupDueInMs();
    if (this.group.length >= GROUP_MAX / 2 || (dueInMs !== undefined && dueInMs <= 0)) {
      return this.startWrite();
    }
    return true;
  }

  /** Writes the group and waits for it (and the write before it): false when the lease was lost. */
  private async writeGroup(): Promise<boolean> {
    return (await this.startWrite()) && (await this.written());
  }

  /** Waits for the write under way, then starts the group's (not awaited: the next events go out meanwhile); false when the lease was lost. */
  private async startWrite(): Promise<boolean> {
    if (!(await this.written())) {
      return false;
    }
    if (this.cursor === this.handedCursor) {
      return true;
    }
    const [cursor, group] = [this.cursor, this.group];
    this.handedCursor = cursor;
    this.group = [];
    this.groupSince = undefined;
    this.deliveriesInWrite = group.length;
    this.writing = this.context.feeds.advance(this.feedId, this.context.owner, cursor, group).then((moved) => {
      this.storedCursor = moved ? cursor : this.storedCursor;
      return moved;
    });
    // Handled where it is next awaited; marked handled now, so a failure meanwhile is no unhandled rejection.
    this.writing.catch(() => undefined);
    return true;
  }

  /**
   * Waits for the write under way: false, and the runner stopped, when the lease was lost. When it failed,
   * the runner goes back to the stored cursor, to send again what that write and the group after it held,
   * and throws, once, what failed it.
   */
  private async written(): Promise<boolean> {
    const writing = this.writing;
    this.writing = Promise.resolve(true);
    try {
      if (!(await writing)) {
        this.stop();
        return false;
      }
      return true;
    } catch (error) {
      [this.cursor, this.handedCursor, this.group, this.groupSince] = [this.storedCursor, this.storedCursor, [], undefined];
      throw error;
    } finally {
      this.deliveriesInWrite = 0;
    }
  }

  /** Waits `ms`, or less if the runner stops; wakes do not shorten it. */
  private async pause(ms: number): Promise<void> {
    if (ms <= 0) {
      return;
    }
    await sleep(ms, undefined, { signal: this.stopping.signal }).catch((error: unknown) => {
      if (!aborted(error)) {
        throw error;
      }
    });
  }

  /**
   * A caught-up runner writes its group when due, and waits for a wake (the dispatcher's: new events) or
   * the stop; it reads again READ_EVERY_MS after its last read at the soonest.
   */
  private async idle(): Promise<void> {
    while (!this.woken && !this.stopped) {
      const dueInMs = this.groupDueInMs();
      if (dueInMs !== undefined && dueInMs <= 0) {
        if (!(await this.writeGroup())) {
          return;
        }
        continue;
      }
      const signal = dueInMs === undefined ? this.stopping.signal : AbortSignal.any([this.stopping.signal, AbortSignal.timeout(Math.ceil(dueInMs))]);
      await once(this.wakes, 'wake', { signal }).catch((error: unknown) => {
        // The stop, or the group's time: once() rejects with an AbortError for either.
        if (!aborted(error)) {
          throw error;
        }
      });
    }
    await this.pause(this.lastReadAt + READ_EVERY_MS - performance.now());
  }
}
