import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { AuditChainHead } from '../../database';
import { eventHash, eventLeafHash, GENESIS_HASH } from './audit-chain';
import { type AssetStatusChange, TrailRepository } from './trail.repository';
import { AUDIT_ACTIONS } from '../audit.vocabulary';
import { appendLeaves, decodeFrontier, type Frontier, frontierRoot } from './merkle';
import { AUDIT_FIELD_LIMITS, storable } from './storable';

/** What the verifier found at the first broken event; the text says what can cause it. */
export const CHAIN_PROBLEMS = {
  HASH_MISMATCH: 'its fields no longer give its hash: it was changed, or moved to another id',
  LINK_MISMATCH: 'it does not follow the event before it: an event was deleted or inserted before it',
  PAST_HEAD: 'it lies past the end of the chain: it was added outside the service',
  HEAD_MISMATCH: 'the chain head names it as the last event, but the chain ends elsewhere: events were deleted from the end, or the head was changed',
  LEAF_MISMATCH: 'its fields (its details included) no longer give its leaf hash, or it is not at its place in the tree: it was changed',
  TREE_MISMATCH: "the tree's right edge kept beside the head does not match the events' leaves: the tree was changed",
} as const;
export type ChainProblem = keyof typeof CHAIN_PROBLEMS;

export interface ChainVerification {
  state: 'intact' | 'broken';
  /** Events in the chain, as the head counts them. */
  length: number;
  head_hash: string;
  first_broken_event_id?: number;
  problem?: ChainProblem;
  /** Only when some disagree: decommissioned or recommissioned assets whose row disagrees with the event that recorded the decision. */
  disagreeing_assets?: AssetDisagreement[];
}

export interface AssetDisagreement {
  asset_id: string;
  /** The event the row or the trail is at fault with; null when the trail holds no decommission event for a decommissioned row. */
  event_id: number | null;
  /**
   * The row's fields that disagree with the event: status, decommission_reason, authorized_by,
   * decommissioned_at; `decommission_event` when the row is decommissioned and no event says so; for
   * a decommission, also what the trail lacks of the two officers' steps (APPROVAL_PROBLEMS).
   */
  fields: string[];
}

/**
 * What a decommission must have in the trail when it took two officers: for one approved through a
 * request (its event names it), the request and an approval by another officer; for any decommission
 * dated since the database's policy became required, a request at all.
 */
export const APPROVAL_PROBLEMS = {
  request_event: 'the trail holds no decommission.request event for its request',
  approved_by: 'the trail holds no decommission.approve event for its request by an officer other than the requester',
  approval: 'the event names no approved request: an instance decommissioned it alone',
} as const;

/** A decommissioned row that no event vouches for, and was not imported decommissioned. */
export const NO_DECOMMISSION_EVENT = 'decommission_event';

const requestIdOf = (details: string | null) => (details === null ? undefined : (JSON.parse(details) as { request_id?: string }).request_id);

/**
 * How much later than the asset row's decommissioned_at its event may be placed: the event's time is the
 * decision's, or its predecessor's when an instance's clock ran ahead; the wait for a place is bounded too.
 */
const PLACE_TOLERANCE_MS = 60_000;

const EMPTY_HEAD: AuditChainHead = { id: 1, event_count: 0, last_event_id: 0, last_hash: GENESIS_HASH, last_occurred_at: null, frontier: '' };
const BATCH_SIZE = 1_000;
/** The longest the walk computes between two turns of the event loop. */
const SLICE_MS = 10;

interface Walked {
  count: number;
  lastId: number;
  lastHash: string;
  tree: Frontier;
}

/** Walks the audit chain from its first event and says whether it is intact; the route and `npm run audit:verify` share it. */
@Injectable()
export class AuditChainVerifier {
  constructor(private readonly repository: TrailRepository) {}

  async verify(): Promise<ChainVerification> {
    let head = await this.readHead();
    const walked: Walked = { count: 0, lastId: 0, lastHash: GENESIS_HASH, tree: { size: 0, hashes: [] } };
    for (;;) {
      const broken = await this.walk(walked, head.last_event_id);
      if (broken) {
        return this.broken(head, broken.id, broken.problem);
      }
      const [beyond] = await this.repository.findChainSegment(head.last_event_id, 1);
      if (!beyond) {
        break;
      }
      // An event past the head is legitimate only if an append committed it (and moved the head) meanwhile.
      const latest = await this.readHead();
      if (latest.last_event_id === head.last_event_id) {
        return this.broken(head, beyond.id, 'PAST_HEAD');
      }
      head = latest;
    }
    if (walked.count !== head.event_count || walked.lastId !== head.last_event_id || walked.lastHash !== head.last_hash) {
      return this.broken(head, head.last_event_id, 'HEAD_MISMATCH');
    }
    if (walked.tree.hashes.join() !== decodeFrontier(head.frontier).join()) {
      return this.broken(head, head.last_event_id, 'TREE_MISMATCH');
    }
    await this.repository.refreshStatistics();
    const disagreeing = merged([...(await this.crossCheckAssets()), ...(await this.decommissionsWithoutEvent()), ...(await this.decommissionsWithoutApproval())]);
    if (disagreeing.length > 0) {
      return { state: 'broken', length: head.event_count, head_hash: head.last_hash, disagreeing_assets: disagreeing };
    }
    return { state: 'intact', length: head.event_count, head_hash: head.last_hash };
  }

  /**
   * The root of the tree of the first `size` events, from their leaves recomputed from their fields (not
   * from the stored hashes); undefined when there are fewer. A trail rebuilt with fresh hashes gives another.
   */
  async rootOfFirst(size: number): Promise<string | undefined> {
    let tree: Frontier = { size: 0, hashes: [] };
    let afterId = 0;
    while (tree.size < size) {
      const events = await this.repository.findChainSegment(afterId, Math.min(BATCH_SIZE, size - tree.size));
      if (events.length === 0) {
        return undefined;
      }
      tree = appendLeaves(tree, events.map(eventLeafHash)).frontier;
      afterId = events[events.length - 1].id;
    }
    return frontierRoot(tree.hashes);
  }

  /** Every asset with an allowed decommission event: its row must still say what its latest decommission or recommission recorded. */
  private async crossCheckAssets(): Promise<AssetDisagreement[]> {
    const disagreeing: AssetDisagreement[] = [];
    let after = '';
    for (;;) {
      const rows = await this.repository.findLatestStatusChanges(after, BATCH_SIZE);
      for (const row of rows) {
        const fields = [...disagreeingFields(row), ...(await this.approvalProblems(row))];
        if (fields.length > 0) {
          disagreeing.push({ asset_id: row.asset_id, event_id: row.event_id, fields });
        }
      }
      if (rows.length < BATCH_SIZE) {
        return disagreeing;
      }
      after = rows[rows.length - 1].asset_id;
    }
  }

  /** Decommissioned rows that no decommission event records, less those imported decommissioned. */
  private async decommissionsWithoutEvent(): Promise<AssetDisagreement[]> {
    const found: AssetDisagreement[] = [];
    for (let after = ''; ; ) {
      const rows = await this.repository.findDecommissionedWithoutEvent(after, BATCH_SIZE);
      found.push(...rows.map(({ asset_id }) => ({ asset_id, event_id: null, fields: [NO_DECOMMISSION_EVENT] })));
      if (rows.length < BATCH_SIZE) {
        return found;
      }
      after = rows[rows.length - 1].asset_id;
    }
  }

  /** Decommissions dated since the database's policy became required whose event names no request: the rule was bypassed. */
  private async decommissionsWithoutApproval(): Promise<AssetDisagreement[]> {
    const policy = await this.repository.findDecommissionPolicy();
    if (policy?.policy !== 'required') {
      return [];
    }
    const found: AssetDisagreement[] = [];
    for (let after = 0; ; ) {
      const events = await this.repository.findDecommissionsSince(policy.since, after, BATCH_SIZE);
      for (const { id, asset_id, details } of events) {
        if (requestIdOf(details) === undefined) {
          found.push({ asset_id: asset_id ?? '', event_id: id, fields: ['approval'] });
        }
      }
      if (events.length < BATCH_SIZE) {
        return found;
      }
      after = events[events.length - 1].id;
    }
  }

  /** For a decommission whose event names its request: the request and its approval by a second officer, as recorded. */
  private async approvalProblems(row: AssetStatusChange): Promise<(keyof typeof APPROVAL_PROBLEMS)[]> {
    const requestId = requestIdOf(row.event_details);
    if (requestId === undefined) {
      return [];
    }
    const steps = (await this.repository.findRequestSteps(row.asset_id)).filter(({ details }) => requestIdOf(details) === requestId);
    const requester = steps.find(({ action }) => action === AUDIT_ACTIONS.requestDecommission)?.actor;
    const approvedByAnother = steps.some(({ action, actor }) => action === AUDIT_ACTIONS.approveDecommission && actor !== requester);
    return [...(requester === undefined ? (['request_event'] as const) : []), ...(approvedByAnother ? [] : (['approved_by'] as const))];
  }

  /** Checks each event after `walked` up to `throughId`, in batches; returns the first that fails. */
  private async walk(walked: Walked, throughId: number): Promise<{ id: number; problem: ChainProblem } | undefined> {
    for (;;) {
      const events = await this.repository.findChainSegment(walked.lastId, BATCH_SIZE, throughId);
      let sliceStarted = performance.now();
      for (const event of events) {
        // SQLite answers synchronously: without turns of the event loop within the walk, a long chain
        // would keep every other request waiting until it is done (in the server, where a worker
        // thread cannot open the database: sqlite::memory:).
        if (performance.now() - sliceStarted >= SLICE_MS) {
          await yieldToEventLoop();
          sliceStarted = performance.now();
        }
        if (eventHash(event) !== event.hash) {
          return { id: event.id, problem: 'HASH_MISMATCH' };
        }
        if (event.prev_hash !== walked.lastHash) {
          return { id: event.id, problem: 'LINK_MISMATCH' };
        }
        const leaf = eventLeafHash(event);
        if (leaf !== event.leaf_hash || event.leaf_index !== walked.count) {
          return { id: event.id, problem: 'LEAF_MISMATCH' };
        }
        walked.tree = appendLeaves(walked.tree, [leaf]).frontier;
        walked.count++;
        walked.lastId = event.id;
        walked.lastHash = event.hash;
      }
      if (events.length < BATCH_SIZE) {
        return undefined;
      }
    }
  }

  /** A missing head row counts as an empty chain, so any event at all lies past it. */
  private async readHead(): Promise<AuditChainHead> {
    return (await this.repository.findChainHead()) ?? EMPTY_HEAD;
  }

  private broken(head: AuditChainHead, eventId: number, problem: ChainProblem): ChainVerification {
    return { state: 'broken', length: head.event_count, head_hash: head.last_hash, first_broken_event_id: eventId, problem };
  }
}

/** One entry an asset and event, in asset order, then event order (a missing event first). */
function merged(disagreements: AssetDisagreement[]): AssetDisagreement[] {
  const byKey = new Map<string, AssetDisagreement>();
  for (const disagreement of disagreements) {
    const key = `${disagreement.asset_id} ${disagreement.event_id}`;
    const known = byKey.get(key);
    byKey.set(key, known ? { ...known, fields: [...known.fields, ...disagreement.fields] } : disagreement);
  }
  return [...byKey.values()].sort((a, b) => (a.asset_id === b.asset_id ? (a.event_id ?? 0) - (b.event_id ?? 0) : a.asset_id < b.asset_id ? -1 : 1));
}

/**
 * Which of the row's fields disagree with the decision its event recorded; events recorded before details
 * existed say nothing of reason and officer. A recommission leaves the decommission's fields as they were
 * (the record of the last decommission) and says only that the asset is active.
 */
function disagreeingFields(row: AssetStatusChange): string[] {
  if (row.event_action === AUDIT_ACTIONS.recommission) {
    return row.status === 'active' ? [] : ['status'];
  }
  const fields: string[] = [];
  if (row.status !== 'decommissioned') {
    fields.push('status');
  }
  if (row.event_details !== null) {
    const details = JSON.parse(row.event_details) as { reason: string; authorized_by: string };
    const recorded = (value: string | null) => (value === null ? null : storable(value, AUDIT_FIELD_LIMITS.detail));
    if (recorded(row.decommission_reason) !== details.reason) {
      fields.push('decommission_reason');
    }
    if (recorded(row.authorized_by) !== details.authorized_by) {
      fields.push('authorized_by');
    }
  }
  const lead = Date.parse(row.event_occurred_at) - Date.parse(row.decommissioned_at ?? '');
  if (!(lead >= 0 && lead <= PLACE_TOLERANCE_MS)) {
    fields.push('decommissioned_at');
  }
  return fields;
}
