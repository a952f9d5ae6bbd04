import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { Kysely, type Transaction } from 'kysely';
import { CommitGroup, type TransactionWork, undoingOnFailure } from './commit-group';
import { groupsCommits } from './engine';
import type { DB } from './database.types';

interface OpenTransaction {
  db: Kysely<DB>;
  /** Absent for a single statement run without a transaction (runStatement on PostgreSQL). */
  trx?: Transaction<DB>;
  afterCommit: (() => Promise<void>)[];
}

/** The transaction the current async context runs in, and its database: runners of one database share it. */
const currentTransaction = new AsyncLocalStorage<OpenTransaction>();

/** One commit group per SQLite database, whichever runner asks: one connection serves them all. */
const commitGroups = new WeakMap<Kysely<DB>, CommitGroup>();

function commitGroupOf(db: Kysely<DB>): CommitGroup {
  let group = commitGroups.get(db);
  if (!group) {
    group = new CommitGroup(db);
    commitGroups.set(db, group);
  }
  return group;
}

/**
 * Lets a service make several repositories' writes commit or fail together. A `run` inside another
 * joins the outer transaction rather than open one of its own: with the commit group, a second
 * transaction would wait for a group that cannot start until the outer one ends.
 */
@Injectable()
export class TransactionRunner {
  private readonly commitGroup?: CommitGroup;

  constructor(private readonly db: Kysely<DB>) {
    this.commitGroup = groupsCommits(db) ? commitGroupOf(db) : undefined;
  }

  /** True on SQLite, where the transactions of one event-loop turn share one database transaction. */
  get groupsCommits(): boolean {
    return this.commitGroup !== undefined;
  }

  async run<T>(work: TransactionWork<T>): Promise<T> {
    const outer = currentTransaction.getStore();
    if (outer?.db === this.db && outer.trx) {
      return work(outer.trx);
    }
    return this.thenAfterCommit((afterCommit) => {
      const inContext: TransactionWork<T> = (trx) => currentTransaction.run({ db: this.db, trx, afterCommit }, () => work(trx));
      return this.commitGroup ? this.commitGroup.run(inContext) : this.db.transaction().execute(inContext);
    });
  }

  /**
   * For work that is one statement, atomic by itself: it joins the current transaction, or a commit
   * group on SQLite; on PostgreSQL it runs straight on the pool, without the round trips of BEGIN and COMMIT.
   */
  async runStatement<T>(work: (executor: Kysely<DB>) => Promise<T>): Promise<T> {
    const outer = currentTransaction.getStore();
    if (this.commitGroup || (outer?.db === this.db && outer.trx)) {
      return this.run(work);
    }
    return this.thenAfterCommit((afterCommit) => currentTransaction.run({ db: this.db, afterCommit }, () => work(this.db)));
  }

  /**
   * Where a read that belongs to the current decision runs: in the transaction open in this async
   * context (a request's, opened around its whole decision), else on the database. On PostgreSQL a read
   * outside it would take a second pooled connection while the transaction holds one: enough such
   * requests at once would each hold one and wait for another.
   */
  executor(): Kysely<DB> {
    const outer = currentTransaction.getStore();
    return outer?.db === this.db && outer.trx ? outer.trx : this.db;
  }

  /**
   * Runs `work` inside the current transaction, in a savepoint: if it fails, what it wrote (and asked
   * to run after the commit) is undone, and the transaction goes on to commit the rest.
   */
  async undoOnFailure<T>(work: () => Promise<T>): Promise<T> {
    const current = currentTransaction.getStore();
    if (current?.db !== this.db || !current.trx) {
      throw new Error('undoOnFailure must be called inside TransactionRunner.run');
    }
    const tasksBefore = current.afterCommit.length;
    try {
      return await undoingOnFailure(current.trx, work);
    } catch (failure) {
      current.afterCommit.splice(tasksBefore);
      throw failure;
    }
  }

  /** Runs what `commit` collected to run after it, once it has committed. */
  private async thenAfterCommit<T>(commit: (afterCommit: (() => Promise<void>)[]) => Promise<T>): Promise<T> {
    const afterCommit: (() => Promise<void>)[] = [];
    const value = await commit(afterCommit);
    await Promise.all(afterCommit.map((task) => task()));
    return value;
  }

  /**
   * Runs `task` once the transaction of the current `run` (or `runStatement`) has committed, before that
   * `run` resolves; a task that fails makes the `run` fail, though what it committed stays.
   */
  afterCommit(task: () => Promise<void>): void {
    const current = currentTransaction.getStore();
    if (current?.db !== this.db) {
      throw new Error('afterCommit must be called inside TransactionRunner.run or runStatement');
    }
    current.afterCommit.push(task);
  }
}
