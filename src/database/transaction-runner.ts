import { Injectable } from '@nestjs/common';
import { Kysely, Transaction } from 'kysely';
import type { DB } from './database.types';

/** Lets a service make several repositories' writes commit or fail together. */
@Injectable()
export class TransactionRunner {
  constructor(private readonly db: Kysely<DB>) {}

  run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }
}
