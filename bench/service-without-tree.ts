import * as chain from '../src/audit/audit-chain';
import { AuditTree } from '../src/audit/audit-tree';
import type { AuditEventRow } from '../src/database';

/*
 * The yardstick of `npm run bench:audit-tree`: the service as it is, with the Merkle tree's work taken
 * out of every append (an empty leaf hash, no interior node stored, the frontier left as it was) and no
 * checkpoint signed. Everything else, the hash chain included, runs unchanged. Its trail does not
 * verify: it is a yardstick, never a service.
 */
Object.assign(chain, {
  chainEvents: (head: Parameters<typeof chain.chainEvents>[0], waiting: Parameters<typeof chain.chainEvents>[1]) => {
    const events: AuditEventRow[] = [];
    let last = head;
    for (const { recorded_at: recordedAt, ...fields } of waiting) {
      const clock = new Date(recordedAt).toISOString();
      const occurredAt = last.last_occurred_at !== null && last.last_occurred_at > clock ? last.last_occurred_at : clock;
      const chained = { ...fields, id: last.last_event_id + 1, occurred_at: occurredAt, prev_hash: last.last_hash };
      const event = { ...chained, hash: chain.eventHash(chained), leaf_hash: '', leaf_index: last.event_count };
      events.push(event);
      last = { ...last, event_count: last.event_count + 1, last_event_id: event.id, last_hash: event.hash, last_occurred_at: event.occurred_at };
    }
    return { events, head: last, nodes: [] };
  },
});
AuditTree.prototype.signIfGrown = () => Promise.resolve();

// Loaded after the changes above, so the service's modules find them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('../src/main');
