import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { type DB, trySerializeWithin } from '../database';

/** A key is its caller's: the same text from another caller is another key. */
export interface CallerKey {
  caller: string;
  key: string;
}

/** What a key was first sent with: a retry must be the same request. */
export interface KeyedRequest {
  method: string;
  path: string;
  fingerprint: string;
}

/** A claim on a key: the request being decided under it, and the token that names this claim. */
export interface KeyClaim extends CallerKey, KeyedRequest {
  token: string;
  claimedAt: string;
  expiresAt: string;
}

/** An answer kept for a retry: its status, the headers that matter (Location, ETag) and its body. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

@Injectable()
export class IdempotencyKeysRepository {
  /**
   * Makes `trx` the one transaction deciding under the caller's key until it ends, however it ends (on
   * PostgreSQL a transaction-scoped advisory lock, let go by a crashed instance's closed connection);
   * false at once when another transaction decides under it now. On SQLite always true: a database's
   * write transactions run one after another.
   */
  lockKey(trx: Kysely<DB>, { caller, key }: CallerKey): Promise<boolean> {
    // A key is visible ASCII: no newline, so the pair reads one way only.
    return trySerializeWithin(trx, 'idempotency_keys', `${caller}\n${key}`);
  }

  /** Claims a key no row holds: one insert; undefined when a row holds it. */
  insertClaim(executor: Kysely<DB>, claim: KeyClaim) {
    return executor
      .insertInto('idempotency_keys')
      .values({ ...this.claimed(claim), caller: claim.caller, idempotency_key: claim.key })
      .onConflict((conflict) => conflict.columns(['caller', 'idempotency_key']).doNothing())
      .returning('claim_token')
      .executeTakeFirst();
  }

  find(executor: Kysely<DB>, { caller, key }: CallerKey) {
    return executor.selectFrom('idempotency_keys').selectAll().where('caller', '=', caller).where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** Takes over the row held by `heldBy`: a fresh claim, whatever it held before. */
  async retakeClaim(trx: Kysely<DB>, claim: KeyClaim, heldBy: string): Promise<void> {
    await trx
      .updateTable('idempotency_keys')
      .set({ ...this.claimed(claim), status: null, headers: null, body: null })
      .where('caller', '=', claim.caller)
      .where('idempotency_key', '=', claim.key)
      .where('claim_token', '=', heldBy)
      .execute();
  }

  /** Keeps the answer of the claim's request, in `trx`, the transaction that claimed it. */
  async complete(trx: Kysely<DB>, claim: KeyClaim, answer: KeptAnswer): Promise<void> {
    await trx
      .updateTable('idempotency_keys')
      .set({ state: 'completed', status: answer.status, headers: JSON.stringify(answer.headers), body: JSON.stringify(answer.body) })
      .where('caller', '=', claim.caller)
      .where('idempotency_key', '=', claim.key)
      .where('claim_token', '=', claim.token)
      .execute();
  }

  /** Deletes every key past its expiry, found by the expiry index. */
  pruneExpired(executor: Kysely<DB>, now: string) {
    return executor.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
  }

  private claimed(claim: KeyClaim) {
    return {
      method: claim.method,
      path: claim.path,
      fingerprint: claim.fingerprint,
      state: 'in_progress' as const,
      claim_token: claim.token,
      claimed_at: claim.claimedAt,
      expires_at: claim.expiresAt,
    };
  }
}
