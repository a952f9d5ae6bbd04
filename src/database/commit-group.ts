import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { context } from '@opentelemetry/api';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { DB } from './database.types';

export type TransactionWork<T> = (trx: Transaction<DB>) => Promise<T>;

interface Waiting {
  work: TransactionWork<unknown>;
  settle: (outcome: { value: unknown } | { error: unknown }) => void;
}

/**
 * Work a commit group does once for all its transactions, last before its commit: `endGroup` is given,
 * in order, what the group's transactions handed it (atGroupEnd), less what those that rolled back
 * handed. If it fails, the group fails as its commit would.
 */
export interface GroupEnd<Item> {
  endGroup(trx: Kysely<DB>, items: Item[]): Promise<void>;
}

interface Handed {
  end: GroupEnd<unknown>;
  item: unknown;
}

/** What the transactions of each open group have handed to its ends, by the group's transaction. */
const handedIn = new WeakMap<Kysely<DB>, Handed[]>();

/**
 * Hands `items` to `end`, which the commit group whose transaction `trx` is runs before it commits; in
 * any other transaction, `end` runs at once with `items` alone.
 */
export async function atGroupEnd<Item>(trx: Kysely<DB>, end: GroupEnd<Item>, items: readonly Item[]): Promise<void> {
  const handed = handedIn.get(trx);
  if (handed) {
    handed.push(...items.map((item) => ({ end, item })));
  } else {
    await end.endGroup(trx, [...items]);
  }
}

/** The savepoint's statements take no values: fixed text, made once. */
const UNDO_ON_FAILURE = {
  open: CompiledQuery.raw('savepoint undo_on_failure'),
  release: CompiledQuery.raw('release savepoint undo_on_failure'),
  rollback: CompiledQuery.raw('rollback to savepoint undo_on_failure'),
};

/**
 * Runs `work` in a savepoint of `trx`: if it fails, what it wrote is undone, and what it handed to the
 * group's ends is taken back, and the transaction goes on.
 */
export async function undoingOnFailure<T>(trx: Kysely<DB>, work: () => Promise<T>): Promise<T> {
  const handed = handedIn.get(trx);
  const handedBefore = handed?.length ?? 0;
  await trx.executeQuery(UNDO_ON_FAILURE.open);
  try {
    const value = await work();
    await trx.executeQuery(UNDO_ON_FAILURE.release);
    return value;
  } catch (failure) {
    handed?.splice(handedBefore);
    await trx.executeQuery(UNDO_ON_FAILURE.rollback);
    await trx.executeQuery(UNDO_ON_FAILURE.release);
    throw failure;
  }
}

function itemsByEnd(handed: Handed[]): Map<GroupEnd<unknown>, unknown[]> {
  const byEnd = new Map<GroupEnd<unknown>, unknown[]>();
  for (const { end, item } of handed) {
    const items = byEnd.get(end);
    if (items) {
      items.push(item);
    } else {
      byEnd.set(end, [item]);
    }
  }
  return byEnd;
}

/** Bounds how long one group holds SQLite's write lock, which other processes on the file wait for. */
export const MAX_GROUP_SIZE = 64;

/**
 * Group commit, for SQLite. With synchronous=FULL the sync of each commit costs more than the
 * statements, and the one connection serves one transaction at a time anyway. So the transactions
 * asked for while a group runs wait for its commit, then run together in the next database
 * transaction, each in a savepoint of its own: one that fails rolls back only its own writes and gets
 * its own error. None is answered before the shared commit is on disk; if that commit fails, every one
 * of them fails with it. Work that costs less done once for them all (a group's end) runs last, in the
 * same transaction.
 *
 * A group gives the event loop a turn between its works. libuv accepts one connection a turn
 * (libuv/libuv#3696): when a group of 32 batches ran in one turn of about 60 ms, a client that had just
 * connected waited one group for each connection ahead of it, up to a second.
 */
export class CommitGroup {
  private waiting: Waiting[] = [];
  private running = false;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly maxSize = MAX_GROUP_SIZE,
  ) {}

  run<T>(work: TransactionWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const settle = (outcome: { value: unknown } | { error: unknown }) =>
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what the work threw, as db.transaction() does
        'error' in outcome ? reject(outcome.error) : resolve(outcome.value as T);
      // Each work runs in its caller's trace context, not in that of the caller who opened the group.
      this.waiting.push({ work: context.bind(context.active(), work), settle });
      if (this.waiting.length === 1 && !this.running) {
        setImmediate(() => void this.commitWaiting());
      }
    });
  }

  private async commitWaiting(): Promise<void> {
    this.running = true;
    try {
      await this.commitGroup(this.waiting.splice(0, this.maxSize));
    } finally {
      this.running = false;
    }
    if (this.waiting.length > 0) {
      setImmediate(() => void this.commitWaiting());
    }
  }

  private async commitGroup(group: Waiting[]): Promise<void> {
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      const trx = await this.db.startTransaction().execute();
      const handed: Handed[] = [];
      handedIn.set(trx, handed);
      try {
        for (const { work } of group) {
          await setImmediatePromise();
          const inSavepoint = await trx.savepoint('work').execute();
          const handedBefore = handed.length;
          let outcome: { value: unknown } | { error: unknown };
          try {
            outcome = { value: await work(trx) };
          } catch (error) {
            outcome = { error };
            handed.length = handedBefore;
            await inSavepoint.rollbackToSavepoint('work').execute();
          }
          await inSavepoint.releaseSavepoint('work').execute();
          outcomes.push(outcome);
        }
        for (const [end, items] of itemsByEnd(handed)) {
          await end.endGroup(trx, items);
        }
        await trx.commit().execute();
      } catch (error) {
        await trx.rollback().execute().catch(() => undefined);
        throw error;
      }
    } catch (error) {
      group.forEach(({ settle }) => settle({ error }));
      return;
    }
    group.forEach(({ settle }, index) => settle(outcomes[index]));
  }
}
