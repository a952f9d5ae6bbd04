import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { databaseClock, databaseClockIn, type DB, type DeliveryFeedRow, TransactionRunner } from '../../database';

/** The attempts kept per feed, the newest: GET /v1/webhooks/{id}/deliveries shows them. */
export const ATTEMPTS_KEPT = 1_000;
/** A feed's older attempts are pruned when an attempt's id is a multiple of this: the table stays near ATTEMPTS_KEPT per feed at a fraction of a DELETE per insert. */
const PRUNE_EVERY = 64;

/** What a runner starts from: the feed's place, its failed attempts at the next event, and when it may try again. */
export const HELD_FEED_COLUMNS = ['feed_id', 'kind', 'cursor', 'attempts', 'next_attempt_at'] as const;

export type HeldFeed = Pick<DeliveryFeedRow, (typeof HELD_FEED_COLUMNS)[number]> & {
  /** The database's clock when the lease was taken or renewed, to read next_attempt_at against. */
  now: string;
};

/** One attempt at one event, as delivery_attempts keeps it. */
export interface AttemptRecord {
  eventId: number;
  attempt: number;
  status?: number;
  error?: string;
  durationMs: number;
  /** performance.now() when the attempt ended: its row, written with its group (usually within 50 ms), is dated then. */
  endedAt: number;
}

/** A failed attempt's consequence: a retry in `retryInMs`, or, without it, the feed turns failing. */
export interface FailedAttempt {
  attempts: number;
  retryInMs?: number;
  error: string;
}

/**
 * The SQL of delivery: leases, cursors and attempts. Every write of a runner names its instance as the
 * lease's owner (fencing): an instance that lost its lease, or whose feed was deleted, writes nothing.
 */
@Injectable()
export class DeliveryFeedsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly transactions: TransactionRunner,
  ) {}

  /**
   * Takes the lease of every active feed of these kinds that no instance holds, or whose lease has
   * expired, and renews those `owner` holds, for `leaseMs`, in one conditional UPDATE; returns the
   * feeds `owner` now holds. A feed it held and that is missing here is no longer its to deliver.
   */
  takeLeases(owner: string, kinds: readonly DeliveryFeedRow['kind'][], leaseMs: number): Promise<HeldFeed[]> {
    return this.transactions.runStatement((db) =>
      db
        .updateTable('delivery_feeds')
        .set({ lease_owner: owner, lease_expires_at: databaseClockIn(db, leaseMs) })
        .where('state', '=', 'active')
        .where('kind', 'in', kinds)
        .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', owner), eb('lease_expires_at', '<', databaseClock(db))]))
        .returning([...HELD_FEED_COLUMNS, databaseClock(db).as('now')])
        .execute(),
    );
  }

  /** Hands back every lease `owner` holds, so another instance takes its feeds at once instead of after the lease. */
  async releaseLeases(owner: string): Promise<void> {
    await this.transactions.runStatement((db) => db.updateTable('delivery_feeds').set({ lease_owner: null, lease_expires_at: null }).where('lease_owner', '=', owner).execute());
  }

  /**
   * Moves the feed's cursor to `cursor` (past the events delivered, or passed over by its filter), clears
   * its failed attempts, and keeps the delivering attempts of a group of deliveries, in one transaction;
   * false, and nothing written, when `owner` no longer holds the feed.
   */
  advance(feedId: string, owner: string, cursor: number, delivered: readonly AttemptRecord[] = []): Promise<boolean> {
    return this.transactions.run(async (trx) => {
      const moved = await trx
        .updateTable('delivery_feeds')
        .set({ cursor, attempts: 0, next_attempt_at: null, last_error: null, updated_at: databaseClock(trx) })
        .where('feed_id', '=', feedId)
        .where('lease_owner', '=', owner)
        .returning('feed_id')
        .executeTakeFirst();
      if (moved && delivered.length > 0) {
        await this.addAttempts(trx, feedId, delivered);
      }
      return moved !== undefined;
    });
  }

  /**
   * A failed attempt: counted, kept, and either its retry's time stored or the feed turned failing (its
   * lease handed back: nothing delivers it until it is resumed). False when `owner` no longer holds it.
   */
  recordFailure(feedId: string, owner: string, failure: FailedAttempt, attempt: AttemptRecord): Promise<boolean> {
    const { attempts, retryInMs, error } = failure;
    return this.transactions.run(async (trx) => {
      const changes =
        retryInMs === undefined
          ? { state: 'failing' as const, next_attempt_at: null, lease_owner: null, lease_expires_at: null }
          : { next_attempt_at: databaseClockIn(trx, retryInMs) };
      const recorded = await trx
        .updateTable('delivery_feeds')
        .set({ ...changes, attempts, last_error: error, updated_at: databaseClock(trx) })
        .where('feed_id', '=', feedId)
        .where('lease_owner', '=', owner)
        .returning('feed_id')
        .executeTakeFirst();
      if (recorded) {
        await this.addAttempts(trx, feedId, [attempt]);
      }
      return recorded !== undefined;
    });
  }

  /** The syslog feed's row, made the first time AUDIT_SYSLOG_URL is set, with `cursor` (the chain's newest event): it starts from then. */
  async ensureSyslogFeed(cursor: number): Promise<void> {
    await this.transactions.runStatement((db) =>
      db
        .insertInto('delivery_feeds')
        .values({ feed_id: 'syslog', kind: 'syslog', state: 'active', cursor, created_at: databaseClock(db), updated_at: databaseClock(db) })
        .onConflict((conflict) => conflict.column('feed_id').doNothing())
        .execute(),
    );
  }

  /** The attempts in one INSERT, each dated when it ended; the feed's oldest pruned when an id it gave is a multiple of PRUNE_EVERY. */
  private async addAttempts(trx: Kysely<DB>, feedId: string, attempts: readonly AttemptRecord[]): Promise<void> {
    const added = await trx
      .insertInto('delivery_attempts')
      .values(
        attempts.map(({ eventId, attempt, status, error, durationMs, endedAt }) => ({
          feed_id: feedId,
          event_id: eventId,
          attempt,
          status: status ?? null,
          error: error ?? null,
          duration_ms: Math.round(durationMs),
          attempted_at: databaseClockIn(trx, endedAt - performance.now()),
        })),
      )
      .returning('id')
      .execute();
    if (added.some(({ id }) => id % PRUNE_EVERY === 0)) {
      await this.pruneAttempts(trx, feedId);
    }
  }

  /** Deletes the feed's attempts older than its newest ATTEMPTS_KEPT: a walk of that many entries of (feed_id, id). */
  private async pruneAttempts(trx: Kysely<DB>, feedId: string): Promise<void> {
    const oldestKept = await trx
      .selectFrom('delivery_attempts')
      .select('id')
      .where('feed_id', '=', feedId)
      .orderBy('id', 'desc')
      .limit(1)
      .offset(ATTEMPTS_KEPT - 1)
      .executeTakeFirst();
    if (oldestKept) {
      await trx.deleteFrom('delivery_attempts').where('feed_id', '=', feedId).where('id', '<', oldestKept.id).execute();
    }
  }
}
