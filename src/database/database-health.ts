import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';
import type { DB } from './database.types';

@Injectable()
export class DatabaseHealth {
  constructor(private readonly db: Kysely<DB>) {}

  async isReachable(): Promise<boolean> {
    try {
      await sql`select 1`.execute(this.db);
      return true;
    } catch {
      return false;
    }
  }
}
