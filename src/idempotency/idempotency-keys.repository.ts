import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { CompiledStatement, type DB, trySerializeWithin } from '../database';

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

/** A claim's row, as inserted (its state is in_progress) or retaken. */
interface ClaimRow extends Omit<KeyClaim, 'key' | 'token' | 'claimedAt' | 'expiresAt'> {
  idempotency_key: string;
  claim_token: string;
  claimed_at: string;
  expires_at: string;
}

/** The answer kept on a claim's row, named by the claim's token. */
interface CompletedRow extends Pick<ClaimRow, 'caller' | 'idempotency_key' | 'claim_token'> {
  status: number;
  headers: string;
  body: string;
}

const CLAIM_COLUMNS = ['caller', 'idempotency_key', 'method', 'path', 'fingerprint', 'claim_token', 'claimed_at', 'expires_at'] as const satisfies readonly (keyof ClaimRow)[];

function compileKeyStatements(db: Kysely<DB>) {
  return {
    insertClaim: new CompiledStatement(db, CLAIM_COLUMNS, (db, row: ClaimRow) =>
      db
        .insertInto('idempotency_keys')
        .values({ ...row, state: 'in_progress' })
        .onConflict((conflict) => conflict.columns(['caller', 'idempotency_key']).doNothing())
        .returning('claim_token'),
    ),
    complete: new CompiledStatement(db, ['status', 'headers', 'body', 'caller', 'idempotency_key', 'claim_token'], (db, row: CompletedRow) =>
      db
        .updateTable('idempotency_keys')
        .set({ state: 'completed', status: row.status, headers: row.headers, body: row.body })
        .where('caller', '=', row.caller)
        .where('idempotency_key', '=', row.idempotency_key)
        .where('claim_token', '=', row.claim_token),
    ),
  };
}

@Injectable()
export class IdempotencyKeysRepository {
  /** Every keyed decision runs them, so their SQL is built once (CompiledStatement in the database module says why). */
  private readonly statements: ReturnType<typeof compileKeyStatements>;

  constructor(db: Kysely<DB>) {
    this.statements = compileKeyStatements(db);
  }

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
  async insertClaim(executor: Kysely<DB>, claim: KeyClaim): Promise<{ claim_token: string } | undefined> {
    const [inserted] = await this.statements.insertClaim.run(executor, { caller: claim.caller, idempotency_key: claim.key, ...this.claimed(claim) });
    return inserted;
  }

  find(executor: Kysely<DB>, { caller, key }: CallerKey) {
    return executor.selectFrom('idempotency_keys').selectAll().where('caller', '=', caller).where('idempotency_key', '=', key).executeTakeFirst();
  }

  /** Takes over the row held by `heldBy`: a fresh claim, whatever it held before. */
  async retakeClaim(trx: Kysely<DB>, claim: KeyClaim, heldBy: string): Promise<void> {
    await trx
      .updateTable('idempotency_keys')
      .set({ ...this.claimed(claim), state: 'in_progress', status: null, headers: null, body: null })
      .where('caller', '=', claim.caller)
      .where('idempotency_key', '=', claim.key)
      .where('claim_token', '=', heldBy)
      .execute();
  }

  /** Keeps the answer of the claim's request, in `trx`, the transaction that claimed it. */
  async complete(trx: Kysely<DB>, claim: KeyClaim, answer: KeptAnswer): Promise<void> {
    await this.statements.complete.run(trx, {
      caller: claim.caller,
      idempotency_key: claim.key,
      claim_token: claim.token,
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      body: JSON.stringify(answer.body),
    });
  }

  /** Deletes every key past its expiry, found by the expiry index. */
  pruneExpired(executor: Kysely<DB>, now: string) {
    return executor.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
  }

  /** What a claim writes on the key's row. */
  private claimed(claim: KeyClaim): Omit<ClaimRow, 'caller' | 'idempotency_key'> {
    return {
      method: claim.method,
      path: claim.path,
      fingerprint: claim.fingerprint,
      claim_token: claim.token,
      claimed_at: claim.claimedAt,
      expires_at: claim.expiresAt,
    };
  }
}
