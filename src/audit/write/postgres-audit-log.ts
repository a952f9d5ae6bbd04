import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely } from 'kysely';
import { OneRunAtATime, ServiceUnavailableError } from '../../common';
import type { AuditConfig } from '../../config';
import { type DB, DedicatedSession } from '../../database';
import { Metrics } from '../../observability';
import { AuditLog, type Placed } from './audit-log';
import { AuditWriteRepository, type WaitingEvent } from './audit-write.repository';
import { decodePlaced, encodePlaced } from './placed-ranges';
import { SequencerSleep } from './sequencer-sleep';

/** The advisory lock whose holder is the one sequencer of the database (of the schema, on a shared server). */
const SEQUENCER_LOCK = 'audit-sequencer';
/** The sequencer notifies this channel as each batch commits; every instance listens for it. */
const PLACED_CHANNEL = 'fleet_registry_audit_placed';
/** An instance that does not sequence notifies this channel once its events committed, to wake the one that does. */
const WAITING_CHANNEL = 'fleet_registry_audit_waiting';
/**
 * For this long after its last batch the sequencer looks again every SOON_MS, wakes or not, so that the
 * events of a busy moment go in batches; an instance that heard of a batch within HEARD_LATELY_MS sends
 * no notice: under load no decision pays for one. The first must exceed the second by more than a
 * notice takes to arrive.
 */
const AWAKE_AFTER_BATCH_MS = 100;
const SOON_MS = 5;
const HEARD_LATELY_MS = 50;
/** Waiters look for themselves this often even without a notice: one is missed while a dedicated connection reconnects. */
const RECHECK_MS = 100;
/** How long places named by a notice are remembered, for a decision that commits and then waits after the notice came. */
const REMEMBER_PLACED_MS = 5_000;

interface Waiter {
  since: number;
  placed: () => void;
}

/** Taken before a decision writes its event, so that a notice naming no places, sent before it waits, is not missed. */
interface WaitTicket {
  unnamedNoticesSeen: number;
}

/**
 * PostgreSQL: decisions write their events unsequenced, into a queue, with no shared lock; one instance
 * at a time holds the sequencer's advisory lock on a connection of its own, and the others try to take
 * it over every takeover interval, so the death of the holder hands it on. The holder chains a batch in
 * two statements and no transaction: one reads the waiting events with the head, one moves them into
 * the chain and notifies every instance of the places it filled. Decisions wait for those notices, with
 * a query of which of them still wait as the fallback, and a bound (docs/audit-write-path.md).
 *
 * When no event has waited for a while, the holder sleeps until events commit: its own instance's wake
 * it directly, another instance's send a notice on WAITING_CHANNEL, and AUDIT_SEQUENCER_INTERVAL_MS bounds
 * the sleep should a notice be lost. Looking every 5 ms instead cost an idle instance about 190 queries a
 * second.
 */
export class PostgresAuditLog extends AuditLog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditSequencer');
  private readonly waiting = new Map<number, Waiter>();
  private readonly stopping = new AbortController();
  private leading?: Promise<void>;
  private session?: DedicatedSession;
  /** Notices heard that named no places: every waiter must then ask the database. */
  private unnamedNotices = 0;
  /** Places that notices named, with when, for waiters that come after their notice. */
  private readonly recentlyPlaced = new Map<number, number>();
  /** One query at a time for all of this instance's waiters; a notice that comes meanwhile asks for one more. */
  private readonly waiterChecks = new OneRunAtATime(
    () => this.settlePlacedWaiters(),
    (error) => this.logger.warn(`could not check the audit events waiting for a place: ${error instanceof Error ? error.message : String(error)}`),
  );
  private recheck?: NodeJS.Timeout;
  /** Told of every notice, from any instance: events were placed in the chain. */
  private readonly noticeListeners = new Set<() => void>();
  /** True while this instance holds the sequencer's lock. */
  private sequencing = false;
  private readonly idle = new SequencerSleep();
  /** One notice in flight at a time: the events committed meanwhile ask for one more after it. */
  private readonly notices = new OneRunAtATime(
    async () => {
      await this.session?.notify(WAITING_CHANNEL, '');
    },
    (error) =>
      this.logger.warn(`could not wake the audit sequencer, which looks within AUDIT_SEQUENCER_INTERVAL_MS: ${error instanceof Error ? error.message : String(error)}`),
  );
  /** When this instance last heard that a batch was placed. */
  private heardAt = -Infinity;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly writes: AuditWriteRepository,
    private readonly metrics: Metrics,
    private readonly config: AuditConfig,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    this.leading = this.lead();
  }

  /** Ends the dedicated session at once, which fails its statement in flight and releases the lock for another instance. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    this.session?.close();
    await this.leading;
  }

  /**
   * Queues the events with `trx`; what it returns resolves, once `trx` has committed, when the sequencer
   * has given every one its place in the chain; it fails with 503 past AUDIT_SEQUENCING_TIMEOUT_MS.
   */
  override async append(trx: Kysely<DB>, events: readonly WaitingEvent[]): Promise<Placed> {
    const ticket = this.ticket();
    const pendingIds = await this.writes.addWaiting(trx, events);
    return async () => {
      this.eventsCommitted();
      await Promise.all(pendingIds.map((pendingId) => this.placed(pendingId, ticket)));
    };
  }

  /** Taken before an event is written (see WaitTicket). */
  private ticket(): WaitTicket {
    return { unnamedNoticesSeen: this.unnamedNotices };
  }

  private placed(pendingId: number, ticket: WaitTicket): Promise<void> {
    if (this.recentlyPlaced.delete(pendingId)) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const bound = this.config.sequencingTimeoutMs;
      const timer = setTimeout(() => {
        this.waiting.delete(pendingId);
        this.logger.error(`audit event ${pendingId} had no place in the chain after ${bound} ms`);
        reject(new ServiceUnavailableError('The service is temporarily unavailable'));
      }, bound);
      this.waiting.set(pendingId, {
        since: performance.now(),
        placed: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      if (this.unnamedNotices !== ticket.unnamedNoticesSeen) {
        void this.waiterChecks.run();
      }
      this.scheduleRecheck();
    });
  }

  /** How long the oldest of this instance's events still waiting for its place has waited. */
  override lagMs(): number {
    const oldest = this.waiting.values().next().value;
    return oldest === undefined ? 0 : performance.now() - oldest.since;
  }

  override isLagging(): boolean {
    return this.lagMs() > this.config.readinessLagMs;
  }

  /** PostgreSQL: take the sequencer's lock when it is free, then chain batches while it is held. */
  private async lead(): Promise<void> {
    const { takeoverIntervalMs, sequencerIntervalMs } = this.config;
    while (!this.stopping.signal.aborted) {
      const lost = new AbortController();
      const active = AbortSignal.any([this.stopping.signal, lost.signal]);
      try {
        const session = await DedicatedSession.open(this.db, () => lost.abort());
        this.session = session;
        await session.listen(PLACED_CHANNEL, (message) => this.heard(message));
        await session.listen(WAITING_CHANNEL, () => this.wakeSequencer());
        while (!active.aborted) {
          if (!(await session.tryLock(SEQUENCER_LOCK))) {
            await pause(takeoverIntervalMs, active);
            continue;
          }
          this.logger.log('This instance sequences the audit trail');
          this.sequencing = true;
          // Back to back while events wait: a decision waits for the batch under way and then its own.
          let batchAt = performance.now();
          while (!active.aborted) {
            this.idle.looking();
            if ((await this.chainBatch(session)) > 0) {
              batchAt = performance.now();
            } else if (performance.now() - batchAt < AWAKE_AFTER_BATCH_MS) {
              await pause(SOON_MS, active);
            } else {
              await this.idle.sleep(sequencerIntervalMs, active);
            }
          }
        }
      } catch (error) {
        if (!this.stopping.signal.aborted) {
          this.logger.warn(`audit sequencing interrupted: ${error instanceof Error ? error.message : String(error)}`);
        }
      } finally {
        this.sequencing = false;
        this.session?.close();
        this.session = undefined;
      }
      await pause(takeoverIntervalMs, this.stopping.signal);
    }
  }

  /** Events committed: the sequencer has work, here or, by a notice, on the instance that holds the lock. */
  private eventsCommitted(): void {
    if (this.sequencing) {
      this.wakeSequencer();
    } else if (performance.now() - this.heardAt >= HEARD_LATELY_MS) {
      void this.notices.run();
    }
  }

  /** Ends this instance's sequencer's sleep, or spares it the next, if it holds the lock. */
  private wakeSequencer(): void {
    if (this.sequencing) {
      this.idle.wake();
    }
  }

  private async chainBatch(session: DedicatedSession): Promise<number> {
    const batch = await this.writes.findWaiting(session.db, this.config.batchLimit);
    if (!batch) {
      return 0;
    }
    await this.writes.moveIntoChainAtOnce(session.db, batch, session.notification(PLACED_CHANNEL, encodePlaced(batch.pendingIds)));
    this.metrics.auditBatchSequenced(batch.pendingIds.length);
    batch.pendingIds.forEach((pendingId) => this.settle(pendingId));
    return batch.pendingIds.length;
  }

  /** Calls `listener` whenever any instance's sequencer has placed events (PostgreSQL); returns the undo. */
  override onPlacedAnywhere(listener: () => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  private heard(message: string): void {
    this.heardAt = performance.now();
    this.noticeListeners.forEach((listener) => listener());
    const placed = decodePlaced(message);
    if (placed.length === 0) {
      this.unnamedNotices++;
      void this.waiterChecks.run();
      return;
    }
    const now = performance.now();
    for (const [pendingId, heardAt] of this.recentlyPlaced) {
      if (now - heardAt < REMEMBER_PLACED_MS) {
        break;
      }
      this.recentlyPlaced.delete(pendingId);
    }
    for (const pendingId of placed) {
      if (!this.settle(pendingId)) {
        this.recentlyPlaced.set(pendingId, now);
      }
    }
  }

  /** True when a decision was waiting for this place. */
  private settle(pendingId: number): boolean {
    const waiter = this.waiting.get(pendingId);
    if (!waiter) {
      return false;
    }
    this.waiting.delete(pendingId);
    waiter.placed();
    return true;
  }

  /** Settles this instance's waiters whose events no longer wait. */
  private async settlePlacedWaiters(): Promise<void> {
    const ids = [...this.waiting.keys()];
    if (ids.length > 0) {
      const still = await this.writes.findStillWaiting(ids);
      ids.filter((id) => !still.has(id)).forEach((id) => this.settle(id));
    }
  }

  private scheduleRecheck(): void {
    if (this.recheck !== undefined) {
      return;
    }
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      void this.waiterChecks.run().then(() => {
        if (this.waiting.size > 0) {
          this.scheduleRecheck();
        }
      });
    }, RECHECK_MS);
  }
}

/** Waits `ms`, or less if `signal` aborts; never throws. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
