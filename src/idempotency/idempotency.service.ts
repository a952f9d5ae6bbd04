import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { IDEMPOTENCY_CONFIG, type IdempotencyConfig } from '../config';
import { type DB, TransactionRunner } from '../database';
import { IdempotencyKeyInUseError, IdempotencyKeyMismatchError } from './idempotency.errors';
import { type CallerKey, type KeptAnswer, type KeyedRequest, IdempotencyKeysRepository } from './idempotency-keys.repository';

/** Expired keys are deleted at most this often per instance, at a keyed decision: no timer, and a handful of rows each time. */
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
   * One transaction takes the key, decides and keeps the answer: they commit together or not at all,
   * so a crash at any point leaves either the decision with its answer or nothing, and nothing that a
   * retry would have to wait out. The key's lock, not a row, keeps a second request out meanwhile:
   * 409 while another transaction decides under it; 422 when the key was first sent with another request.
   */
  async decideOnce<D extends Decided>(key: CallerKey, request: KeyedRequest, decide: () => Promise<D>): Promise<DecidedOnce<D>> {
    await this.pruneNow();
    return this.transactions.run(async (trx) => {
      const now = Date.now();
      const decidedAt = new Date(now).toISOString();
      const kept = await this.keptAnswer(trx, key, request, decidedAt);
      if (kept) {
        return { replay: kept };
      }
      const decided = await decide();
      const expiresAt = new Date(now + this.config.ttlSeconds * 1000).toISOString();
      await this.keys.keep(trx, { ...key, ...request, decidedAt, expiresAt }, decided.answer);
      return { decided };
    });
  }

  /** Takes the key in `trx`; the answer kept for its first request, if it has one not expired at `now`. */
  private async keptAnswer(trx: Kysely<DB>, key: CallerKey, request: KeyedRequest, now: string): Promise<KeptAnswer | undefined> {
    if (!(await this.keys.lockKey(trx, key))) {
      throw new IdempotencyKeyInUseError();
    }
    const held = await this.keys.find(trx, key);
    if (!held || held.expires_at <= now) {
      return undefined;
    }
    if (held.method !== request.method || held.path !== request.path || held.fingerprint !== request.fingerprint) {
      throw new IdempotencyKeyMismatchError();
    }
    return { status: held.status, headers: JSON.parse(held.headers) as Record<string, string>, body: JSON.parse(held.body) as unknown };
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
