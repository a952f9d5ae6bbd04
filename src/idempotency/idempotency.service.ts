import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { IDEMPOTENCY_CONFIG, type IdempotencyConfig } from '../config';
import { type DB, TransactionRunner } from '../database';
import { IdempotencyKeyInUseError, IdempotencyKeyMismatchError } from './idempotency.errors';
import { type CallerKey, type KeptAnswer, type KeyClaim, type KeyedRequest, IdempotencyKeysRepository } from './idempotency-keys.repository';

/**
 * A claim older than this belongs to an instance that died while deciding (the server gives up on a
 * request after 30 s, SERVER_TIMEOUTS): a retry takes it over. The instance it was taken from, were it
 * alive after all, could not complete it (its token no longer matches), so its decision is undone.
 */
export const CLAIM_STALE_MS = 60_000;
/** Expired keys are deleted at most this often per instance, at a claim: no timer, and a handful of rows each time. */
const PRUNE_EVERY_MS = 60_000;
/** A claim lost to a racing one is tried again this many times (the racer released or took it over meanwhile). */
const CLAIM_ATTEMPTS = 3;

/** A claimed key, to decide under; or the answer its first request got, to give again. */
export type ClaimOutcome = { claim: KeyClaim } | { replay: KeptAnswer };

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
   * Claims the caller's key for this request before it is decided; or the kept answer of the key's
   * first request; 422 when that was another request, 409 while it is still being decided.
   */
  async claim(key: CallerKey, request: KeyedRequest): Promise<ClaimOutcome> {
    await this.pruneNow();
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const claim = this.newClaim(key, request);
      if (await this.transactions.runStatement((executor) => this.keys.insertClaim(executor, claim))) {
        return { claim };
      }
      const held = await this.keys.find(key);
      if (!held) {
        continue;
      }
      if (held.expires_at > claim.claimedAt) {
        if (held.method !== request.method || held.path !== request.path || held.fingerprint !== request.fingerprint) {
          throw new IdempotencyKeyMismatchError();
        }
        if (held.state === 'completed') {
          return { replay: { status: held.status as number, headers: JSON.parse(held.headers ?? '{}') as Record<string, string>, body: JSON.parse(held.body ?? 'null') as unknown } };
        }
        if (Date.parse(held.claimed_at) > Date.parse(claim.claimedAt) - CLAIM_STALE_MS) {
          throw new IdempotencyKeyInUseError();
        }
      }
      // Expired, or claimed by an instance that died deciding: a fresh claim, unless a racer took it first.
      if (await this.transactions.runStatement((executor) => this.keys.retakeClaim(executor, claim, held.claim_token))) {
        return { claim };
      }
    }
    throw new IdempotencyKeyInUseError();
  }

  /**
   * Keeps the answer of the claim's decision in `trx`, the decision's own transaction, so the change and
   * its answer commit together. A claim taken over meanwhile fails the transaction: the decision is the
   * other request's to make.
   */
  async complete(trx: Kysely<DB>, claim: KeyClaim, answer: KeptAnswer): Promise<void> {
    if (!(await this.keys.complete(trx, claim, answer))) {
      throw new Error(`the claim on Idempotency-Key ${claim.key} was taken over before its decision committed`);
    }
  }

  /** Keeps the answer of a refusal that reflects the record's state (nothing changed, so nothing else commits with it). */
  keepRefusal(claim: KeyClaim, answer: KeptAnswer): Promise<void> {
    return this.transactions.runStatement(async (executor) => {
      await this.complete(executor, claim, answer);
    });
  }

  /** Frees the key of a request whose answer is not kept (a 400, 401, 403, 429, 5xx): its retry is decided afresh. */
  async release(claim: KeyClaim): Promise<void> {
    await this.transactions.runStatement((executor) => this.keys.release(executor, claim));
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
