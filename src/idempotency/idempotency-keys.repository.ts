import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { CompiledStatement, type DB, type IdempotencyKeysTable, trySerializeWithin } from '../database';

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

/** An answer kept for a retry: its status, the headers that matter (Location, ETag) and its body. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A request decided under a key, when, and until when its answer is kept. */
export interface DecidedRequest extends CallerKey, KeyedRequest {
  decidedAt: string;
  expiresAt: string;
}

const KEY_COLUMNS = ['caller', 'idempotency_key', 'method', 'path', 'fingerprint', 'claimed_at', 'expires_at', 'status', 'headers', 'body'] as const satisfies readonly (keyof IdempotencyKeysTable)[];

function compileKeyStatements(db: Kysely<DB>) {
  return {
    find: new CompiledStatement(db, ['caller', 'idempotency_key'], (db, row: Pick<IdempotencyKeysTable, 'caller' | 'idempotency_key'>) =>
      db
        .selectFrom('idempotency_keys')
        .select(['method', 'path', 'fingerprint', 'expires_at', 'status', 'headers', 'body'])
        .where('caller', '=', row.caller)
        .where('idempotency_key', '=', row.idempotency_key),
    ),
    // A row still there is one past its expiry, not yet pruned: the key is new again, and its row this answer's.
    keep: new CompiledStatement(db, KEY_COLUMNS, (db, row: IdempotencyKeysTable) =>
      db
        .insertInto('idempotency_keys')
        .values(row)
        .onConflict((conflict) =>
          conflict.columns(['caller', 'idempotency_key']).doUpdateSet((eb) => ({
            method: eb.ref('excluded.method'),
            path: eb.ref('excluded.path'),
            fingerprint: eb.ref('excluded.fingerprint'),
            claimed_at: eb.ref('excluded.claimed_at'),
            expires_at: eb.ref('excluded.expires_at'),
            status: eb.ref('excluded.status'),
            headers: eb.ref('excluded.headers'),
            body: eb.ref('excluded.body'),
          })),
        ),
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

  /** The request and answer kept under the caller's key, expired or not; undefined when none is. */
  async find(executor: Kysely<DB>, { caller, key }: CallerKey) {
    const [row] = await this.statements.find.run(executor, { caller, idempotency_key: key });
    return row;
  }

  /** Keeps the answer of the request decided under its key, in `trx`, the transaction that decided it. */
  async keep(trx: Kysely<DB>, decided: DecidedRequest, answer: KeptAnswer): Promise<void> {
    await this.statements.keep.run(trx, {
      caller: decided.caller,
      idempotency_key: decided.key,
      method: decided.method,
      path: decided.path,
      fingerprint: decided.fingerprint,
      claimed_at: decided.decidedAt,
      expires_at: decided.expiresAt,
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      body: JSON.stringify(answer.body),
    });
  }

  /** Deletes every key past its expiry, found by the expiry index. */
  pruneExpired(executor: Kysely<DB>, now: string) {
    return executor.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
  }
}
