import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { CommitGroup, type TransactionWork } from './commit-group';
import { groupsCommits } from './engine';
import type { DB } from './database.types';

/** Lets a service make several repositories' writes commit or fail together. */
@Injectable()
export class TransactionRunner {
  private readonly commitGroup?: CommitGroup;

  constructor(private readonly db: Kysely<DB>) {
    this.commitGroup = groupsCommits(db) ? new CommitGroup(db) : undefined;
  }

  run<T>(work: TransactionWork<T>): Promise<T> {
    return this.commitGroup ? this.commitGroup.run(work) : this.db.transaction().execute(work);
  }
}
