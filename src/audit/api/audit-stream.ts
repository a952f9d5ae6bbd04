import { BeforeApplicationShutdown, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type Actor, OneRunAtATime, RateLimitedError, ServiceUnavailableError } from '../../common';
import { Metrics } from '../../observability';
import { AuditLog } from '../write';
import { type AuditEventFilter, AuditQueryRepository, type ListedAuditEvent } from './audit-query.repository';

/** Open streams one officer may hold at once on an instance. */
export const STREAMS_PER_CLIENT = 5;
/** Events the hub reads per query. */
const BATCH = 500;
/** Events a replay reads and encodes per step: a step of one stream takes a few milliseconds of the event loop. */
const REPLAY_BATCH = 100;
/** Replay steps under way at once on the instance, whatever the number of streams. */
const REPLAY_STEPS_AT_ONCE = 4;
/** Live events a stream may hold while it replays; past this it is too slow to keep. */
const HELD_LIMIT = 10_000;
/** The hub also looks for new events this often while streams are open: SQLite's only signal, and PostgreSQL's bound when a notice is missed. */
const POLL_MS = 250;

/** Where a stream's events go: `send` writes them and says false once the stream is over (closed, or dropped as too slow). */
export interface StreamSink {
  send(events: readonly ListedAuditEvent[]): boolean;
  /** The client has gone, or the stream was ended: nothing more is read for it. */
  closed(): boolean;
  /** Resolves once what was sent has mostly reached the client: true, or false when the stream is over. */
  drained(): Promise<boolean>;
  end(): void;
}

interface Subscriber {
  filter: AuditEventFilter;
  sink: StreamSink;
  officerId: string;
  /** The last event sent: nothing at or before it is sent again. */
  lastSentId: number;
  /** Live events that came during the replay, sent after it. */
  held?: ListedAuditEvent[];
  /** No filter: the stream takes the hub's batches as they are. */
  takesAll: boolean;
}

function matches(event: ListedAuditEvent, filter: AuditEventFilter): boolean {
  return (
    (filter.actor === undefined || event.actor === filter.actor) &&
    (filter.action === undefined || event.action === filter.action) &&
    (filter.outcome === undefined || event.outcome === filter.outcome) &&
    (filter.asset_id === undefined || event.asset_id === filter.asset_id) &&
    (filter.since === undefined || event.occurred_at >= filter.since) &&
    (filter.until === undefined || event.occurred_at < filter.until)
  );
}

/**
 * Replay steps of every stream on the instance: one started per turn of the event loop (each from its own
 * setImmediate) and at most REPLAY_STEPS_AT_ONCE under way. However many streams replay, a request waits
 * behind at most one step's work, and the instance holds at most that many steps' events for replays.
 * On SQLite a step runs to its end at once; on PostgreSQL the steps' queries overlap.
 */
class ReplayTurns {
  private readonly waiting: (() => Promise<void>)[] = [];
  private running = 0;
  private scheduled = false;

  take<T>(step: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => step().then(resolve, reject));
      this.schedule();
    });
  }

  private schedule(): void {
    if (!this.scheduled && this.running < REPLAY_STEPS_AT_ONCE && this.waiting.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.startNext());
    }
  }

  private startNext(): void {
    this.scheduled = false;
    const next = this.waiting.shift();
    if (next) {
      this.running++;
      void next().finally(() => {
        this.running--;
        this.schedule();
      });
    }
    this.schedule();
  }
}

/**
 * Live audit events for the streams of this instance. One hub reads what was appended after the last
 * event it saw, once for all streams, when the sequencer hears that any instance placed events
 * (PostgreSQL's NOTIFY) and every POLL_MS while streams are open (SQLite's way); each
 * stream takes the events its filter matches. A stream subscribes before it replays from the database,
 * holding live events meanwhile, and never sends an event at or before the last it sent: no gap, no
 * duplicate.
 */
@Injectable()
export class AuditStream implements BeforeApplicationShutdown, OnModuleDestroy {
  private readonly logger = new Logger('AuditStream');
  private readonly subscribers = new Set<Subscriber>();
  private lastSeenId?: number;
  private readonly reads = new OneRunAtATime(
    () => this.readNewBatch(),
    (error) => this.logger.warn(`could not read new audit events: ${error instanceof Error ? error.message : String(error)}`),
  );
  private poll?: NodeJS.Timeout;
  private readonly stopListening: () => void;
  private draining = false;
  private readonly replayTurns = new ReplayTurns();

  constructor(
    private readonly events: AuditQueryRepository,
    auditLog: AuditLog,
    private readonly metrics: Metrics,
  ) {
    this.stopListening = auditLog.onPlacedAnywhere(() => this.poke());
  }

  /**
   * Starts a stream after `afterId` (after the newest event when undefined): replays what the database
   * holds after it, then goes live. Refused with 429 past STREAMS_PER_CLIENT for the officer, and with
   * 503 while the instance drains, so the client reconnects elsewhere.
   */
  async subscribe(filter: AuditEventFilter, afterId: number | undefined, officer: Actor, sink: StreamSink): Promise<() => void> {
    if (this.draining) {
      throw new ServiceUnavailableError('This instance is shutting down; reconnect');
    }
    if ([...this.subscribers].filter((subscriber) => subscriber.officerId === officer.id).length >= STREAMS_PER_CLIENT) {
      throw new RateLimitedError(5);
    }
    const takesAll = Object.values(filter).every((value) => value === undefined);
    const subscriber: Subscriber = { filter, sink, officerId: officer.id, lastSentId: afterId ?? Number.MAX_SAFE_INTEGER, held: [], takesAll };
    // Subscribed first, so what is placed from here on is held; the replay covers everything before.
    this.subscribers.add(subscriber);
    const newest = await this.newestId();
    subscriber.lastSentId = afterId ?? newest;
    this.lastSeenId ??= newest;
    this.schedulePoll();
    const unsubscribe = () => {
      this.subscribers.delete(subscriber);
    };
    try {
      await this.replay(subscriber);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /** Reads new events now: something was placed. */
  private poke(): void {
    if (this.subscribers.size > 0) {
      void this.reads.run();
    }
  }

  /** A draining instance ends its streams, so their clients reconnect to another, and takes no new ones. */
  beforeApplicationShutdown(): void {
    this.draining = true;
    for (const subscriber of this.subscribers) {
      subscriber.sink.end();
    }
    this.subscribers.clear();
  }

  onModuleDestroy(): void {
    this.stopListening();
    clearTimeout(this.poll);
  }

  private drop(subscriber: Subscriber): void {
    this.subscribers.delete(subscriber);
    subscriber.sink.end();
  }

  /**
   * A replay goes at the client's pace: the next step is read only once the client has taken the last
   * (the database holds what it has not read yet), and in its turn among every stream's steps.
   */
  private async replay(subscriber: Subscriber): Promise<void> {
    const step = async () => {
      if (subscriber.sink.closed()) {
        return false;
      }
      const events = await this.events.findAfter(subscriber.filter, subscriber.lastSentId, REPLAY_BATCH);
      this.metrics.auditEventsReplayed(events.length);
      return this.deliver(subscriber, events) && events.length === REPLAY_BATCH;
    };
    let more = true;
    while (more) {
      more = (await this.replayTurns.take(step)) && (await subscriber.sink.drained());
    }
    const held = subscriber.held ?? [];
    subscriber.held = undefined;
    this.deliver(subscriber, held);
  }

  /**
   * Sends what the stream has not sent yet; false once it is over. Events come in id order, so when the
   * first is new all are, and the stream sends the very batch it was given, which its sink may have
   * encoded for another stream already.
   */
  private deliver(subscriber: Subscriber, events: ListedAuditEvent[]): boolean {
    const fresh = events.length > 0 && events[0].id > subscriber.lastSentId ? events : events.filter((event) => event.id > subscriber.lastSentId);
    if (fresh.length === 0) {
      return true;
    }
    subscriber.lastSentId = fresh[fresh.length - 1].id;
    if (!subscriber.sink.send(fresh)) {
      this.subscribers.delete(subscriber);
      return false;
    }
    return true;
  }

  /** Hands the events placed since the last read to the subscribers; true when a full batch leaves more to read. */
  private async readNewBatch(): Promise<boolean> {
    const events = await this.events.findAfter({}, this.lastSeenId ?? (await this.newestId()), BATCH);
    if (events.length === 0) {
      return false;
    }
    this.lastSeenId = events[events.length - 1].id;
    for (const subscriber of this.subscribers) {
      const matching = subscriber.takesAll ? events : events.filter((event) => matches(event, subscriber.filter));
      if (subscriber.held && subscriber.held.length + matching.length > HELD_LIMIT) {
        this.drop(subscriber);
      } else if (subscriber.held) {
        subscriber.held.push(...matching);
      } else {
        this.deliver(subscriber, matching);
      }
    }
    return events.length === BATCH;
  }

  private schedulePoll(): void {
    if (this.poll !== undefined) {
      return;
    }
    this.poll = setTimeout(() => {
      this.poll = undefined;
      if (this.subscribers.size === 0) {
        this.lastSeenId = undefined;
        return;
      }
      void this.reads.run().finally(() => this.schedulePoll());
    }, POLL_MS);
  }

  private async newestId(): Promise<number> {
    return (await this.events.findNewestId()) ?? 0;
  }
}
