import { createHash } from 'node:crypto';
import type { AuditChainHead, AuditEventRow } from '../database';

/** The `prev_hash` of the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a decision records, in the order the hash reads them. */
export const DECISION_FIELDS = [
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
] as const satisfies readonly (keyof AuditEventRow)[];

/** Every stored field but the hash itself, in the order the hash reads them: reordering them breaks every chain. */
export const HASHED_FIELDS = ['id', 'occurred_at', ...DECISION_FIELDS, 'prev_hash'] as const satisfies readonly (keyof AuditEventRow)[];

export type ChainedFields = Omit<AuditEventRow, 'hash'>;
/**
 * What the caller decides; the chain decides the rest. Values must already be storable (see
 * storable.ts): a lone surrogate, stored differently by each engine, would not match its hash once read back.
 */
export type UnchainedEvent = Omit<AuditEventRow, 'id' | 'occurred_at' | 'prev_hash' | 'hash'>;

/**
 * SHA-256 over the JSON array of the fields: JSON keeps null apart from "null" and numbers apart
 * from strings, and no value can run into the next.
 */
export function eventHash(event: ChainedFields): string {
  return createHash('sha256')
    .update(JSON.stringify(HASHED_FIELDS.map((field) => event[field])))
    .digest('hex');
}

/** The event that follows `head`: the next position, a time that never goes back, linked to the head's hash. */
export function nextEvent(head: AuditChainHead, fields: UnchainedEvent, now: Date): AuditEventRow {
  const clock = now.toISOString();
  const occurredAt = head.last_occurred_at !== null && head.last_occurred_at > clock ? head.last_occurred_at : clock;
  const chained: ChainedFields = { ...fields, id: head.last_event_id + 1, occurred_at: occurredAt, prev_hash: head.last_hash };
  return { ...chained, hash: eventHash(chained) };
}

/** A batch of waiting events, in the order given, appended after `head`; returns them and the chain's new head. */
export function chainEvents(
  head: AuditChainHead,
  waiting: readonly (UnchainedEvent & { recorded_at: string })[],
): { events: AuditEventRow[]; head: AuditChainHead } {
  const events: AuditEventRow[] = [];
  let last = head;
  for (const { recorded_at: recordedAt, ...fields } of waiting) {
    const event = nextEvent(last, fields, new Date(recordedAt));
    events.push(event);
    last = { ...last, event_count: last.event_count + 1, last_event_id: event.id, last_hash: event.hash, last_occurred_at: event.occurred_at };
  }
  return { events, head: last };
}
