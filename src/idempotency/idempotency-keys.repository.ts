import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { DB } from '../database';

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

/** A claim on a key: the request being decided under it, and the token that alone may complete it. */
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
  constructor(private readonly db: Kysely<DB>) {}

  /** Claims a key no row holds: one insert, so of racing claims on any instances exactly one is made; undefined when a row holds it. */
  insertClaim(executor: Kysely<DB>, claim: KeyClaim) {
    return executor
      .insertInto('idempotency_keys')
      .values({ ...this.claimed(claim), caller: claim.caller, idempotency_key: claim.key })
      .onConflict((conflict) => conflict.columns(['caller', 'idempotency_key']).doNothing())
      .returning('claim_token')
      .executeTakeFirst();
  }

  find({ caller, key }: CallerKey) {
    return this.db.selectFrom('idempotency_keys').selectAll().where('caller', '=', caller).where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** Takes over the row while it is still held by `heldBy` (expired, or a claim gone stale): a fresh claim, whatever it held before. */
  async retakeClaim(executor: Kysely<DB>, claim: KeyClaim, heldBy: string): Promise<boolean> {
    const { numUpdatedRows } = await executor
      .updateTable('idempotency_keys')
      .set({ ...this.claimed(claim), status: null, headers: null, body: null })
      .where('caller', '=', claim.caller)
      .where('idempotency_key', '=', claim.key)
      .where('claim_token', '=', heldBy)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  /** Keeps the answer of the claim's request, in `executor` (the decision's transaction); false when the claim was taken over. */
  async complete(executor: Kysely<DB>, claim: KeyClaim, answer: KeptAnswer): Promise<boolean> {
    const { numUpdatedRows } = await executor
      .updateTable('idempotency_keys')
      .set({ state: 'completed', status: answer.status, headers: JSON.stringify(answer.headers), body: JSON.stringify(answer.body) })
      .where('caller', '=', claim.caller)
      .where('idempotency_key', '=', claim.key)
      .where('claim_token', '=', claim.token)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  /** Frees the key of a request whose answer is not kept, so its retry is decided afresh. */
  release(executor: Kysely<DB>, claim: KeyClaim) {
    return executor
      .deleteFrom('idempotency_keys')
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
