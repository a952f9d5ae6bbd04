import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';
import { STORAGE_RETRY_SECONDS } from '../common';
import type { DB } from './database.types';
import { isStorageFailure } from './database-errors';

@Injectable()
export class DatabaseHealth {
  private storageFailedAt = -Infinity;

  constructor(private readonly db: Kysely<DB>) {}

  async isReachable(): Promise<boolean> {
    try {
      await sql`select 1`.execute(this.db);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * True, and remembered, when a write failed because the database cannot store data. A full disk still
   * answers reads, so readiness cannot see it by asking: it fails for STORAGE_RETRY_SECONDS after the last
   * such failure, and an instance whose writes succeed again is ready again.
   */
  failedToStore(error: unknown): boolean {
    if (!isStorageFailure(error)) {
      return false;
    }
    this.storageFailedAt = Date.now();
    return true;
  }

  isStoring(): boolean {
    return Date.now() - this.storageFailedAt >= STORAGE_RETRY_SECONDS * 1000;
  }
}
