import { type AuditQueryRepository, shownEvent, type ShownAuditEvent } from './audit-query.repository';

/** Events read per query. */
const BATCH = 1_000;

export type AuditExportStart = { afterId: number } | { since: string };

/**
 * The audit events from `start` on with their chain fields, in chain (id) order, a batch at a time,
 * each batch read after the last id of the one before. Events appended meanwhile are followed to the
 * end, so a later export can go on after the last id this one gave.
 */
export async function* auditEventBatches(trail: AuditQueryRepository, start: AuditExportStart): AsyncGenerator<ShownAuditEvent[]> {
  let afterId: number;
  if ('since' in start) {
    const first = await trail.findFirstIdSince(start.since);
    if (first === undefined) {
      return;
    }
    afterId = first - 1;
  } else {
    afterId = start.afterId;
  }
  for (;;) {
    const events = await trail.findAfter({}, afterId, BATCH);
    if (events.length === 0) {
      return;
    }
    yield events.map(shownEvent);
    afterId = events[events.length - 1].id;
  }
}
