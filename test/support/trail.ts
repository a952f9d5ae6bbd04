import type { Kysely } from 'kysely';
import { chainEvents, GENESIS_HASH, type UnchainedEvent } from '../../src/audit/trail/audit-chain';
import type { DB } from '../../src/database';

const BATCH = 1_000;
const REFUSAL: UnchainedEvent = { action: 'auth.authenticate', outcome: 'denied', reason: 'UNAUTHENTICATED', actor: null, actor_clearance: null, asset_id: null, request_id: 'r', ip: '127.0.0.1', method: 'GET', path: '/v1/fleet/star-destroyers', details: null };

/**
 * Fills an empty trail with `count` refused authentications, chained and placed in the tree as the
 * service places them, much faster than requests would: a long trail for a verification to walk.
 */
export async function fillTrail(db: Kysely<DB>, count: number): Promise<void> {
  const head = await db.selectFrom('audit_chain_head').selectAll().executeTakeFirstOrThrow();
  if (head.last_hash !== GENESIS_HASH) {
    throw new Error('fillTrail needs an empty trail');
  }
  await extendTrail(db, count);
}

/** What extendTrail appends: the event at each place after the head, and when it was recorded. */
export interface TrailEvents {
  eventAt?: (index: number) => UnchainedEvent;
  recordedAt?: string;
}

/** Appends `count` events (refused authentications unless `eventAt` says) to the trail as fillTrail does: while nothing else writes to it. */
export async function extendTrail(db: Kysely<DB>, count: number, { eventAt = () => REFUSAL, recordedAt = new Date().toISOString() }: TrailEvents = {}): Promise<void> {
  let head = await db.selectFrom('audit_chain_head').selectAll().executeTakeFirstOrThrow();
  for (let written = 0; written < count; written += BATCH) {
    const chained = chainEvents(head, Array.from({ length: Math.min(BATCH, count - written) }, (_, index) => ({ ...eventAt(written + index), recorded_at: recordedAt })));
    await db.insertInto('audit_events').values(chained.events).execute();
    if (chained.nodes.length > 0) {
      await db.insertInto('audit_tree_nodes').values(chained.nodes.map(({ level, index, hash }) => ({ level, node_index: index, hash }))).execute();
    }
    head = chained.head;
  }
  const { id, ...moved } = head;
  await db.updateTable('audit_chain_head').set(moved).where('id', '=', id).execute();
}
