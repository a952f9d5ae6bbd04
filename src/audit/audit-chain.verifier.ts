import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { AuditChainHead } from '../database';
import { eventHash, GENESIS_HASH } from './audit-chain';
import { AuditRepository } from './audit.repository';

/** What the verifier found at the first broken event; the text says what can cause it. */
export const CHAIN_PROBLEMS = {
  HASH_MISMATCH: 'its fields no longer give its hash: it was changed, or moved to another id',
  LINK_MISMATCH: 'it does not follow the event before it: an event was deleted or inserted before it',
  PAST_HEAD: 'it lies past the end of the chain: it was added outside the service',
  HEAD_MISMATCH: 'the chain head names it as the last event, but the chain ends elsewhere: events were deleted from the end, or the head was changed',
} as const;
export type ChainProblem = keyof typeof CHAIN_PROBLEMS;

export interface ChainVerification {
  state: 'intact' | 'broken';
  /** Events in the chain, as the head counts them. */
  length: number;
  head_hash: string;
  first_broken_event_id?: number;
  problem?: ChainProblem;
}

const EMPTY_HEAD: AuditChainHead = { id: 1, event_count: 0, last_event_id: 0, last_hash: GENESIS_HASH, last_occurred_at: null };
const BATCH_SIZE = 1_000;
/** Events checked between two turns of the event loop. */
const YIELD_EVERY = 100;

interface Walked {
  count: number;
  lastId: number;
  lastHash: string;
}

/** Walks the audit chain from its first event and says whether it is intact; the route and `npm run audit:verify` share it. */
@Injectable()
export class AuditChainVerifier {
  constructor(private readonly repository: AuditRepository) {}

  async verify(): Promise<ChainVerification> {
    let head = await this.readHead();
    const walked: Walked = { count: 0, lastId: 0, lastHash: GENESIS_HASH };
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
    return { state: 'intact', length: head.event_count, head_hash: head.last_hash };
  }

  /** Checks each event after `walked` up to `throughId`, in batches; returns the first that fails. */
  private async walk(walked: Walked, throughId: number): Promise<{ id: number; problem: ChainProblem } | undefined> {
    for (;;) {
      const events = await this.repository.findChainSegment(walked.lastId, BATCH_SIZE, throughId);
      for (const [index, event] of events.entries()) {
        // SQLite answers synchronously: without turns of the event loop within the walk, a long chain
        // would keep every other request waiting until it is done.
        if (index % YIELD_EVERY === YIELD_EVERY - 1) {
          await yieldToEventLoop();
        }
        if (eventHash(event) !== event.hash) {
          return { id: event.id, problem: 'HASH_MISMATCH' };
        }
        if (event.prev_hash !== walked.lastHash) {
          return { id: event.id, problem: 'LINK_MISMATCH' };
        }
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
