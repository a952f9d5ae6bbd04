import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { IDEMPOTENCY_CONFIG, type IdempotencyConfig } from '../config';
import { type DB, TransactionRunner } from '../database';
import { IdempotencyKeyInUseError, IdempotencyKeyMismatchError } from './idempotency.errors';
import { type CallerKey, type KeptAnswer, type KeyClaim, type KeyedRequest, IdempotencyKeysRepository } from './idempotency-keys.repository';

/** Expired keys are deleted at most this often per instance, at a claim: no timer, and a handful of rows each time. */
const PRUNE_EVERY_MS = 60_000;

/** What a decision under a key gives to keep: its answer, and whatever else its caller needs back. */
export interface Decided {
  answer: KeptAnswer;
}

/** The decision made now under the key; or the answer its first request got, to give again. */
export type DecidedOnce<D extends Decided> = { decided: D } | { replay: KeptAnswer };

/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a decision sent again with its key is
 * answered as it was the first time, and applied once. Every state is in the database, so every
 * instance sees every key.
 */
@Injectable()
export class IdempotencyService {
  private lastPruned = 0;

  constructor(
    private readonly keys: IdempotencyKeysRepository,
    private readonly transactions: TransactionRunner,
    @Inject(IDEMPOTENCY_CONFIG) private readonly config: IdempotencyConfig,
  ) {}

  /**
   * Runs `decide` once under the caller's key, or gives the answer kept for the key's first request.
   * One transaction claims the key, decides and keeps the answer: they commit together or not at all,
   * so a crash at any point leaves either the decision with its answer or nothing, and no claim that a
   * retry would have to wait out. 422 when the key was first sent with another request; 409 while
   * another transaction decides under it.
   */
  async decideOnce<D extends Decided>(key: CallerKey, request: KeyedRequest, decide: () => Promise<D>): Promise<DecidedOnce<D>> {
    await this.pruneNow();
    return this.transactions.run(async (trx) => {
      const claimed = await this.claim(trx, key, request);
      if ('replay' in claimed) {
        return claimed;
      }
      const decided = await decide();
      await this.keys.complete(trx, claimed.claim, decided.answer);
      return { decided };
    });
  }

  /** Claims the key in `trx`; or the kept answer of its first request. */
  private async claim(trx: Kysely<DB>, key: CallerKey, request: KeyedRequest): Promise<{ claim: KeyClaim } | { replay: KeptAnswer }> {
    if (!(await this.keys.lockKey(trx, key))) {
      throw new IdempotencyKeyInUseError();
    }
    const claim = this.newClaim(key, request);
    if (await this.keys.insertClaim(trx, claim)) {
      return { claim };
    }
    const held = await this.keys.find(trx, key);
    if (!held) {
      // Pruned between the insert and this read, as it expired: the retry claims it afresh.
      throw new IdempotencyKeyInUseError();
    }
    if (held.expires_at > claim.claimedAt) {
      if (held.method !== request.method || held.path !== request.path || held.fingerprint !== request.fingerprint) {
        throw new IdempotencyKeyMismatchError();
      }
      if (held.state === 'completed') {
        return { replay: { status: held.status as number, headers: JSON.parse(held.headers ?? '{}') as Record<string, string>, body: JSON.parse(held.body ?? 'null') as unknown } };
      }
    }
    // Expired; or claimed without an answer, which only a claim's own uncommitted transaction sees, and
    // this one holds the key: no transaction decides under it. A fresh claim, with a token of its own.
    await this.keys.retakeClaim(trx, claim, held.claim_token);
    return { claim };
  }

  private newClaim(key: CallerKey, request: KeyedRequest): KeyClaim {
    const now = Date.now();
    return { ...key, ...request, token: randomUUID(), claimedAt: new Date(now).toISOString(), expiresAt: new Date(now + this.config.ttlSeconds * 1000).toISOString() };
  }

  private async pruneNow(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPruned < PRUNE_EVERY_MS) {
      return;
    }
    this.lastPruned = now;
    await this.transactions.runStatement((executor) => this.keys.pruneExpired(executor, new Date(now).toISOString()));
  }
}
