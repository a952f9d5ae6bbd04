import { Injectable } from '@nestjs/common';
import { Kysely, type Transaction } from 'kysely';
import { type AuditChainHead, type AuditEventRow, type AuditOutcome, type DB, type Page, precompile, selectPage } from '../database';
import { HASHED_FIELDS, nextEvent, type UnchainedEvent } from './audit-chain';

/** What the API shows of an event, in the order it shows it: the hashed fields, then the hash. */
export const AUDIT_EVENT_COLUMNS = [...HASHED_FIELDS, 'hash'] as const;

export interface AuditEventFilter {
  outcome?: AuditOutcome;
  assetId?: string;
}

/** The appends' three statements, compiled once: every decommission and every denial runs them. */
function appendQueries(db: Kysely<DB>) {
  return {
    // Updating the head first takes its lock (a row lock on PostgreSQL, the write lock on SQLite):
    // every other append, from any connection or instance, waits here until this one commits.
    takeHead: db
      .updateTable('audit_chain_head')
      .set((eb) => ({ event_count: eb('event_count', '+', 1) }))
      .where('id', '=', 1)
      .returningAll()
      .compile(),
    insertEvent: precompile((event: AuditEventRow) =>
      db.insertInto('audit_events').values(Object.fromEntries(AUDIT_EVENT_COLUMNS.map((column) => [column, event[column]])) as AuditEventRow),
    ),
    moveHead: precompile((event: AuditEventRow) =>
      db
        .updateTable('audit_chain_head')
        .set({ last_event_id: event.id, last_hash: event.hash, last_occurred_at: event.occurred_at })
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

  /** Adds the event at the end of the chain, inside the caller's transaction. */
  async append(fields: UnchainedEvent, trx: Transaction<DB>): Promise<void> {
    const [head] = (await trx.executeQuery(this.appending.takeHead)).rows;
    if (head === undefined) {
      throw new Error('audit_chain_head has no row');
    }
    const event = nextEvent(head, fields, new Date());
    await trx.executeQuery(this.appending.insertEvent(event));
    await trx.executeQuery(this.appending.moveHead(event));
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
