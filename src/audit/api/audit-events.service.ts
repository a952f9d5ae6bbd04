import { Injectable } from '@nestjs/common';
import { pageNumber, pageOffset } from '../../common';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor';
import { type AuditEventFilter, AuditQueryRepository, type ShownAuditEvent, shownEvent } from './audit-query.repository';
import type { AuditEventPageDto, AuditFilterQueryDto, ListAuditEventsQueryDto } from './dto/audit-event.dto';

/** The query's filters, its instants as stored (ISO 8601 UTC). */
export function auditFilterOf(query: AuditFilterQueryDto): AuditEventFilter {
  const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
  return { actor: query.actor, action: query.action, outcome: query.outcome, asset_id: query.asset_id, since: instant(query.since), until: instant(query.until) };
}

/** The trail's listing. */
@Injectable()
export class AuditEventsService {
  constructor(private readonly events: AuditQueryRepository) {}

  /**
   * With cursor, a keyset page: counts nothing and costs the same at any depth. Otherwise the offset
   * page (`page`, 1 by default) with total_count, whose cost grows with the depth. Both carry next_cursor.
   */
  async list(query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    const filter = auditFilterOf(query);
    const beforeId = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
    const [{ rows, more }, total] = await Promise.all([
      this.events.findPage(filter, beforeId === undefined ? { limit: query.limit, offset: pageOffset(query) } : { limit: query.limit, beforeId }),
      beforeId === undefined ? this.events.countMatching(filter) : null,
    ]);
    return {
      events: rows.map(shownEvent),
      total_count: total,
      page: beforeId === undefined ? pageNumber(query) : null,
      per_page: query.limit,
      next_cursor: more ? encodeAuditCursor(rows[rows.length - 1].id) : null,
    };
  }

  /** The id of the chain's newest event; 0 while the trail is empty. */
  async newestId(): Promise<number> {
    return (await this.events.findNewestId()) ?? 0;
  }

  /** Whether the trail holds an event with this id. */
  async exists(id: number): Promise<boolean> {
    return (await this.events.findAfter({}, id - 1, 1)).some((event) => event.id === id);
  }

  /** Up to `limit` events after `afterId`, oldest first, each exactly as the listing shows it: what the delivery feeds push. */
  async after(afterId: number, limit: number): Promise<ShownAuditEvent[]> {
    return (await this.events.findAfter({}, afterId, limit)).map(shownEvent);
  }
}
