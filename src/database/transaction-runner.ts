import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { Kysely, type Transaction } from 'kysely';
import { CommitGroup, type TransactionWork } from './commit-group';
import { groupsCommits } from './create-database';
import type { DB } from './database.types';

/** The transaction the current async context runs in, and its database: runners of one database share it. */
const currentTransaction = new AsyncLocalStorage<{ db: Kysely<DB>; trx: Transaction<DB> }>();

/**
 * Lets a service make several repositories' writes commit or fail together. A `run` inside another
 * joins the outer transaction rather than open one of its own: with the commit group, a second
 * transaction would wait for a group that cannot start until the outer one ends.
 */
@Injectable()
export class TransactionRunner {
  private readonly commitGroup?: CommitGroup;

  constructor(private readonly db: Kysely<DB>) {
    this.commitGroup = groupsCommits(db) ? new CommitGroup(db) : undefined;
  }

  run<T>(work: TransactionWork<T>): Promise<T> {
    const outer = currentTransaction.getStore();
    if (outer?.db === this.db) {
      return work(outer.trx);
    }
    const inContext: TransactionWork<T> = (trx) => currentTransaction.run({ db: this.db, trx }, () => work(trx));
    return this.commitGroup ? this.commitGroup.run(inContext) : this.db.transaction().execute(inContext);
  }
}
