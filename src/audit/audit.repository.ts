import { Injectable } from '@nestjs/common';
import { Kysely, type Transaction } from 'kysely';
import { type AuditChainHead, type AuditEventRow, type AuditOutcome, type DB, type Page, precompile, selectPage } from '../database';
import { chainEvents, HASHED_FIELDS, type UnchainedEvent } from './audit-chain';

/** What the API shows of an event, in the order it shows it: the hashed fields, then the hash. */
export const AUDIT_EVENT_COLUMNS = [...HASHED_FIELDS, 'hash'] as const;

export interface AuditEventFilter {
  outcome?: AuditOutcome;
  assetId?: string;
}

/** A waiting event as the decision writes it: its fields and the time of the decision. */
export type WaitingEvent = UnchainedEvent & { recorded_at: string };

const WAITING_COLUMNS = [
  'recorded_at',
  'action',
  'outcome',
  'reason',
  'actor',
  'actor_clearance',
  'asset_id',
  'request_id',
  'ip',
  'method',
  'path',
] as const satisfies readonly (keyof WaitingEvent)[];

/** The statements every decision and every batch runs, compiled once. */
function appendQueries(db: Kysely<DB>) {
  return {
    addWaiting: precompile((event: WaitingEvent) =>
      db
        .insertInto('audit_pending')
        .values(Object.fromEntries(WAITING_COLUMNS.map((column) => [column, event[column]])) as WaitingEvent)
        .returning('pending_id'),
    ),
    // Rewriting a column to itself takes the head's lock (a row lock on PostgreSQL, the write lock on
    // SQLite) for the rest of the batch's transaction, and returns where the chain ends.
    takeHead: db
      .updateTable('audit_chain_head')
      .set((eb) => ({ event_count: eb.ref('event_count') }))
      .where('id', '=', 1)
      .returningAll()
      .compile(),
    moveHead: precompile((head: AuditChainHead) =>
      db
        .updateTable('audit_chain_head')
        .set({ event_count: head.event_count, last_event_id: head.last_event_id, last_hash: head.last_hash, last_occurred_at: head.last_occurred_at })
        .where('id', '=', 1),
    ),
  };
}

@Injectable()
export class AuditRepository {
  private readonly appending;

  constructor(private readonly db: Kysely<DB>) {
    this.appending = appendQueries(db);
  }

  /** Records the event, not yet in the chain, inside the caller's transaction; returns its place in the queue. */
  async addWaiting(event: WaitingEvent, trx: Transaction<DB>): Promise<number> {
    const [row] = (await trx.executeQuery(this.appending.addWaiting(event))).rows;
    return Number(row.pending_id);
  }

  /**
   * Moves up to `limit` waiting events, oldest first, to the end of the chain inside `trx`: one
   * statement takes them out of the queue, one locks the head, one inserts them all, one moves the head.
   * Returns their places in the queue and their times of decision, in chain order.
   */
  async chainWaiting(trx: Transaction<DB>, limit: number): Promise<{ pendingId: number; recordedAt: string }[]> {
    const taken = await trx
      .deleteFrom('audit_pending')
      .where('pending_id', 'in', (eb) => eb.selectFrom('audit_pending').select('pending_id').orderBy('pending_id').limit(limit))
      .returningAll()
      .execute();
    if (taken.length === 0) {
      return [];
    }
    const waiting = taken.map((row) => ({ ...row, pending_id: Number(row.pending_id) })).sort((a, b) => a.pending_id - b.pending_id);
    const [head] = (await trx.executeQuery(this.appending.takeHead)).rows;
    if (head === undefined) {
      throw new Error('audit_chain_head has no row');
    }
    const chained = chainEvents(head, waiting);
    await trx
      .insertInto('audit_events')
      .values(chained.events.map((event) => Object.fromEntries(AUDIT_EVENT_COLUMNS.map((column) => [column, event[column]])) as AuditEventRow))
      .execute();
    await trx.executeQuery(this.appending.moveHead(chained.head));
    return waiting.map((row) => ({ pendingId: row.pending_id, recordedAt: row.recorded_at }));
  }

  /** Which of these waiting events are still waiting; the others are in the chain, committed. */
  async findStillWaiting(pendingIds: number[]): Promise<Set<number>> {
    const rows = await this.db.selectFrom('audit_pending').select('pending_id').where('pending_id', 'in', pendingIds).execute();
    return new Set(rows.map((row) => Number(row.pending_id)));
  }

  findChainHead(): Promise<AuditChainHead | undefined> {
    return this.db.selectFrom('audit_chain_head').selectAll().where('id', '=', 1).executeTakeFirst();
  }

  /** Events in chain order after `afterId`, up to `throughId` when given. */
  findChainSegment(afterId: number, limit: number, throughId?: number): Promise<AuditEventRow[]> {
    let events = this.db.selectFrom('audit_events').select(AUDIT_EVENT_COLUMNS).where('id', '>', afterId);
    if (throughId !== undefined) {
      events = events.where('id', '<=', throughId);
    }
    return events.orderBy('id').limit(limit).execute();
  }

  /** The first event at or after the time (ISO 8601 UTC, as stored); `occurred_at` never decreases along the chain. */
  async findFirstIdSince(time: string): Promise<number | undefined> {
    const first = await this.db
      .selectFrom('audit_events')
      .select('id')
      .where('occurred_at', '>=', time)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return first?.id;
  }

  /** Newest first: the chain's order, which is `id` order. */
  findPage(filter: AuditEventFilter, limit: number, offset: number): Promise<Page<AuditEventRow>> {
    let events = this.db.selectFrom('audit_events');
    if (filter.outcome) {
      events = events.where('outcome', '=', filter.outcome);
    }
    if (filter.assetId) {
      events = events.where('asset_id', '=', filter.assetId);
    }
    return selectPage(events, (query) => query.select(AUDIT_EVENT_COLUMNS).orderBy('id', 'desc'), { limit, offset });
  }
}
