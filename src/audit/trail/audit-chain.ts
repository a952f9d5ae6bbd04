import { createHash } from 'node:crypto';
import type { AuditChainHead, AuditEventRow } from '../../database';
import { appendLeaves, decodeFrontier, encodeFrontier, leafHash, type StoredNode } from './merkle';

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

/**
 * The fields of an event's leaf in the audit tree, in order: the hashed fields, then the decision's
 * details, which came after the chain and so are not in its hash.
 */
export const LEAF_FIELDS = [...HASHED_FIELDS, 'details'] as const satisfies readonly (keyof AuditEventRow)[];

/** Every column an event is stored with. */
export const STORED_EVENT_COLUMNS = [...LEAF_FIELDS, 'hash', 'leaf_hash', 'leaf_index'] as const satisfies readonly (keyof AuditEventRow)[];

export type ChainedFields = Omit<AuditEventRow, 'hash' | 'leaf_hash' | 'leaf_index'>;
/**
 * What the caller decides; the chain decides the rest. Values must already be storable (see
 * storable.ts): a lone surrogate, stored differently by each engine, would not match its hash once read back.
 */
export type UnchainedEvent = Omit<AuditEventRow, 'id' | 'occurred_at' | 'prev_hash' | 'hash' | 'leaf_hash' | 'leaf_index'>;

/** The JSON array of the hashed fields: JSON keeps null apart from "null" and numbers apart from strings, and no value can run into the next. */
const hashedJson = (event: ChainedFields) => JSON.stringify(HASHED_FIELDS.map((field) => event[field]));

const chainHash = (json: string) => createHash('sha256').update(json).digest('hex');

/** The leaf's text: the hashed fields' JSON array with the details' JSON (or null) added as its last element. */
const leafAfter = (json: string, details: string | null) => `${json.slice(0, -1)},${details ?? 'null'}]`;

const leafHashAfter = (json: string, details: string | null) => leafHash(leafAfter(json, details));

/** The chain's hash: SHA-256 over the JSON array of the hashed fields. */
export function eventHash(event: ChainedFields): string {
  return chainHash(hashedJson(event));
}

/**
 * The event's RFC 9162 leaf hash (base64): SHA-256 of 0x00 and the UTF-8 JSON array of its LEAF_FIELDS,
 * `details` as the object it holds (keys `reason`, `authorized_by`) or null. Stored details are that
 * object's JSON as JSON.stringify wrote it, so the array is the hashed fields' array with the text added.
 */
export function eventLeafHash(event: ChainedFields): string {
  return leafHashAfter(hashedJson(event), event.details);
}

/** The event's leaf as the tree hashes it (after the 0x00 of a leaf): the text that eventLeafHash hashes. */
export function eventLeaf(event: ChainedFields): string {
  return leafAfter(hashedJson(event), event.details);
}

/** Where the chain ends, as chaining an event reads and moves it: the head without the tree's frontier. */
export type ChainEnd = Pick<AuditChainHead, 'event_count' | 'last_event_id' | 'last_hash' | 'last_occurred_at'>;

/** The event that follows `head`: the next position, a time that never goes back, linked to the head's hash. */
export function nextEvent(head: ChainEnd, fields: UnchainedEvent, now: Date): AuditEventRow {
  const clock = now.toISOString();
  const occurredAt = head.last_occurred_at !== null && head.last_occurred_at > clock ? head.last_occurred_at : clock;
  const chained: ChainedFields = { ...fields, id: head.last_event_id + 1, occurred_at: occurredAt, prev_hash: head.last_hash };
  const json = hashedJson(chained);
  return { ...chained, hash: chainHash(json), leaf_hash: leafHashAfter(json, chained.details), leaf_index: head.event_count };
}

/** The chain's end once `event`, which followed `head`, is in it. */
export const endAfter = <Head extends ChainEnd>(head: Head, event: AuditEventRow): Head => ({
  ...head,
  event_count: head.event_count + 1,
  last_event_id: event.id,
  last_hash: event.hash,
  last_occurred_at: event.occurred_at,
});

/**
 * A batch of waiting events, in the order given, appended after `head`; returns them, the chain's new
 * head (with the tree's new right edge) and the tree's subtrees that they completed.
 */
export function chainEvents(
  head: AuditChainHead,
  waiting: readonly (UnchainedEvent & { recorded_at: string })[],
): { events: AuditEventRow[]; head: AuditChainHead; nodes: StoredNode[] } {
  const events: AuditEventRow[] = [];
  let last = head;
  for (const { recorded_at: recordedAt, ...fields } of waiting) {
    const event = nextEvent(last, fields, new Date(recordedAt));
    events.push(event);
    last = endAfter(last, event);
  }
  const tree = appendLeaves(
    { size: head.event_count, hashes: decodeFrontier(head.frontier) },
    events.map((event) => event.leaf_hash),
  );
  return { events, head: { ...last, frontier: encodeFrontier(tree.frontier.hashes) }, nodes: tree.nodes };
}
