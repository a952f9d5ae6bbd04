import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { type AuditEventRow, type AuditOutcome, type DB, readPage } from '../../database';
import { LEAF_FIELDS } from '../trail';
import type { DecisionDetails } from '../write';

/** What the API shows of an event, in the order it shows it: the leaf's fields, then the hashes. */
export const AUDIT_EVENT_COLUMNS = [...LEAF_FIELDS, 'hash', 'leaf_hash'] as const;

export type ListedAuditEvent = Pick<AuditEventRow, (typeof AUDIT_EVENT_COLUMNS)[number]>;

/** An event as the listing and the export show it: its columns in their order, `details` as the object it holds. */
export type ShownAuditEvent = Omit<ListedAuditEvent, 'details'> & { details: DecisionDetails | null };

export function shownEvent(row: ListedAuditEvent): ShownAuditEvent {
  const shown = Object.fromEntries(AUDIT_EVENT_COLUMNS.map((column) => [column, row[column]])) as ListedAuditEvent;
  return { ...shown, details: row.details === null ? null : (JSON.parse(row.details) as DecisionDetails) };
}

/** Each field narrows the events; since and until are ISO 8601 UTC instants as stored. */
export interface AuditEventFilter {
  actor?: string;
  action?: string;
  outcome?: AuditOutcome;
  asset_id?: string;
  since?: string;
  until?: string;
}

/** The ids a listing keeps: from `fromId`, before `beforeId`. */
interface IdBounds {
  fromId?: number;
  beforeId?: number;
}

/** The trail as its readers filter and page it: the listing, the live stream and the export. */
@Injectable()
export class AuditQueryRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async findNewestId(): Promise<number | undefined> {
    return (await this.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id;
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

  /**
   * A page of matching events, newest first (the chain's order, which is `id` order), with one more
   * read than shown, which tells whether more follow; `beforeId` continues a keyset walk. since and
   * until are first resolved to id bounds, so the page reads one filter's `(column, id)` index (or the
   * primary key) from its start in id order, filtering any other column: no sort, at any depth.
   */
  async findPage(filter: AuditEventFilter, window: { limit: number; offset?: number; beforeId?: number }): Promise<{ rows: ListedAuditEvent[]; more: boolean }> {
    const bounds = await this.idBounds(filter);
    if (bounds === 'none') {
      return { rows: [], more: false };
    }
    if (window.beforeId !== undefined) {
      bounds.beforeId = Math.min(bounds.beforeId ?? window.beforeId, window.beforeId);
    }
    return readPage(this.filtered(filter, bounds).select(AUDIT_EVENT_COLUMNS).orderBy('id', 'desc'), window);
  }

  /** Up to `limit` matching events after `afterId`, oldest first: a stream's replay, and the events its hub fans out. */
  async findAfter(filter: AuditEventFilter, afterId: number, limit: number): Promise<ListedAuditEvent[]> {
    const bounds = await this.idBounds(filter);
    if (bounds === 'none') {
      return [];
    }
    return this.filtered(filter, { ...bounds, fromId: Math.max(bounds.fromId ?? 0, afterId + 1) })
      .select(AUDIT_EVENT_COLUMNS)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /** Every matching event: what the offset listing reports as total_count. */
  async countMatching(filter: AuditEventFilter): Promise<number> {
    const bounds = await this.idBounds(filter);
    if (bounds === 'none') {
      return 0;
    }
    const { total } = await this.filtered(filter, bounds)
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  private filtered(filter: AuditEventFilter, bounds: IdBounds) {
    let events = this.db.selectFrom('audit_events');
    for (const column of ['actor', 'action', 'outcome', 'asset_id'] as const) {
      const value = filter[column];
      if (value !== undefined) {
        events = events.where(column, '=', value);
      }
    }
    if (bounds.fromId !== undefined) {
      events = events.where('id', '>=', bounds.fromId);
    }
    if (bounds.beforeId !== undefined) {
      events = events.where('id', '<', bounds.beforeId);
    }
    return events;
  }

  /**
   * occurred_at never decreases along the chain, so a time is the id of the first event at or after it:
   * since keeps ids from there, until those before. No event at or after since: none matches; none at
   * or after until: no upper bound.
   */
  private async idBounds({ since, until }: AuditEventFilter): Promise<IdBounds | 'none'> {
    const firstAtOrAfter = async (time: string | undefined) => {
      if (time === undefined) {
        return undefined;
      }
      const first = await this.db.selectFrom('audit_events').select('id').where('occurred_at', '>=', time).orderBy('occurred_at').orderBy('id').limit(1).executeTakeFirst();
      return first?.id ?? null;
    };
    const [fromId, beforeId] = await Promise.all([firstAtOrAfter(since), firstAtOrAfter(until)]);
    return fromId === null ? 'none' : { fromId, beforeId: beforeId ?? undefined };
  }

}
