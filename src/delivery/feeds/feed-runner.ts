import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@nestjs/common';
import type { AuditEventsService, ShownAuditEvent } from '../../audit';
import type { DeliveryConfig } from '../../config';
import type { FeedLag, Metrics } from '../../observability';
import type { AttemptRecord, DeliveryFeedsRepository, HeldFeed } from './delivery-feeds.repository';
import type { FeedSender } from './feed-sender';
import { retryDelayMs } from './retry-delay';

/** Events read per query. */
const BATCH = 200;
/** After the database failed it (a query, a commit), the runner waits this long before it starts again from its cursor, doubling while it keeps failing ... */
const PAUSE_AFTER_ERROR_MS = 1_000;
/** ... up to this. */
const LONGEST_PAUSE_MS = 30_000;

/** What every runner of an instance shares. */
export interface RunnerContext {
  owner: string;
  feeds: DeliveryFeedsRepository;
  events: Pick<AuditEventsService, 'after'>;
  metrics: Metrics;
  config: Pick<DeliveryConfig, 'maxAttempts' | 'retryBaseMs'>;
  logger: Pick<Logger, 'warn'>;
}

const aborted = (error: unknown) => error instanceof Error && error.name === 'AbortError';

/**
 * Delivers one feed while this instance holds its lease: reads the events after its cursor, passes over
 * those the feed does not take, and sends the next one it takes, one at a time, in chain order. A
 * delivered event moves the cursor in the database; a failed one is retried after a backoff, and
 * nothing after it goes first, until WEBHOOK_MAX_ATTEMPTS failed attempts turn the feed failing (when its
 * sender `turnsFailing`: a webhook). The cursor moves only after a delivery (its write overlapping the
 * next send), so a process killed at any moment has its successor send again at most the event it was
 * sending and the one whose cursor it was writing. Every write names this instance as the lease's owner: one that lost the lease stops.
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
  /**
   * The cursor write of the last delivery, still under way while the next event is sent: a send does not
   * wait for the commit before it, and the writes stay in order, each awaiting the one before (stored()).
   * False once the lease was lost; a failure of the database surfaces where it is next awaited.
   */
  private storing: Promise<boolean> = Promise.resolve(true);
  /** Batches in a row that failed on an error (a database down, a secret that no longer opens). */
  private errorsInARow = 0;

  constructor(
    feed: HeldFeed,
    private readonly sender: FeedSender,
    private readonly context: RunnerContext,
  ) {
    this.feedId = feed.feed_id;
    this.cursor = feed.cursor;
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
      // The last delivery's cursor, before the dispatcher hands the lease back.
      await this.stored().catch(() => false);
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
    if (!(await this.stored()) || !(await this.sender.refresh())) {
      this.stop();
      return false;
    }
    const events = await this.context.events.after(this.cursor, BATCH);
    let passed = this.cursor;
    for (const event of events) {
      this.pendingSince = event.occurred_at;
      if (this.sender.takes(event)) {
        if (!(await this.deliver(event))) {
          return false;
        }
      }
      passed = event.id;
    }
    this.pendingSince = undefined;
    if (!(await this.stored())) {
      return false;
    }
    // Only passed-over events since the last delivery: their place is stored once per batch.
    if (passed > this.cursor && !(await this.store(passed))) {
      this.stop();
      return false;
    }
    return events.length < BATCH;
  }

  /** Sends `event` until it is delivered (true) or the runner stops: stopped, lease lost, feed gone or failing (false). */
  private async deliver(event: ShownAuditEvent): Promise<boolean> {
    const { feeds, metrics, config, logger, owner } = this.context;
    for (;;) {
      const attempt = this.attempts + 1;
      const started = performance.now();
      const result = await this.sender.send(event, attempt, this.stopping.signal);
      const record = { eventId: event.id, attempt, status: result.status, durationMs: performance.now() - started };
      if (result.delivered) {
        metrics.feedEventDelivered(this.feedId);
        this.attempts = 0;
        if (!(await this.stored())) {
          return false;
        }
        // Stored even when stopping: the receiver has it, and sending it again is what the cursor avoids.
        this.storing = this.store(event.id, record);
        // Handled where it is next awaited; marked handled now, so a failure meanwhile is no unhandled rejection.
        this.storing.catch(() => undefined);
        return true;
      }
      if (this.stopped || !(await this.stored())) {
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

  /** Moves the cursor in the database, with the delivering attempt; false when the lease is no longer this instance's. */
  private async store(cursor: number, delivered?: AttemptRecord): Promise<boolean> {
    const moved = await this.context.feeds.advance(this.feedId, this.context.owner, cursor, delivered);
    if (moved) {
      this.cursor = cursor;
    }
    return moved;
  }

  /** Waits for the last delivery's cursor write: false, and the runner stopped, when the lease was lost; throws, once, what failed it. */
  private async stored(): Promise<boolean> {
    const storing = this.storing;
    this.storing = Promise.resolve(true);
    if (!(await storing)) {
      this.stop();
      return false;
    }
    return true;
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

  /** A caught-up runner waits for a wake (the dispatcher's: new events) or the stop. */
  private async idle(): Promise<void> {
    if (this.woken || this.stopped) {
      return;
    }
    await once(this.wakes, 'wake', { signal: this.stopping.signal }).catch((error: unknown) => {
      if (!aborted(error)) {
        throw error;
      }
    });
  }
}
