import { Injectable } from '@nestjs/common';
import { Kysely, type Transaction } from 'kysely';
import { type AuditChainHead, type AuditEventRow, type AuditOutcome, type DB, type Page, selectPage } from '../database';
import { HASHED_FIELDS, nextEvent, type UnchainedEvent } from './audit-chain';

/** What the API shows of an event, in the order it shows it: the hashed fields, then the hash. */
export const AUDIT_EVENT_COLUMNS = [...HASHED_FIELDS, 'hash'] as const;

export interface AuditEventFilter {
  outcome?: AuditOutcome;
  assetId?: string;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Adds the event at the end of the chain, inside the caller's transaction. */
  async append(fields: UnchainedEvent, trx: Transaction<DB>): Promise<void> {
    // Updating the head first takes its lock (a row lock on PostgreSQL, the write lock on SQLite):
    // every other append, from any connection or instance, waits here until this one commits.
    const head = await trx
      .updateTable('audit_chain_head')
      .set((eb) => ({ event_count: eb('event_count', '+', 1) }))
      .where('id', '=', 1)
      .returningAll()
      .executeTakeFirstOrThrow();
    const event = nextEvent(head, fields, new Date());
    await trx.insertInto('audit_events').values(event).execute();
    await trx
      .updateTable('audit_chain_head')
      .set({ last_event_id: event.id, last_hash: event.hash, last_occurred_at: event.occurred_at })
      .where('id', '=', 1)
      .execute();
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
