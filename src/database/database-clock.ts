import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Kysely, sql } from 'kysely';
import { DATABASE_CLOCK_CONFIG, type DatabaseClockConfig } from '../config';
import type { DB } from './database.types';
import { isPostgres } from './engine';

/** How often an instance compares its clock with the database's. */
const CHECK_INTERVAL_MS = 2_000;

/** One comparison: the database's clock minus this process's, and how far off that may be either way. */
export interface ClockReading {
  skewMs: number;
  uncertaintyMs: number;
}

/**
 * The skew from one round trip: the database read its clock at some moment between sending and
 * receiving, so it is compared with the midpoint, give or take half the round trip.
 */
export function readingOf(sentAt: number, databaseNow: number, roundTripMs: number): ClockReading {
  return { skewMs: databaseNow - (sentAt + roundTripMs / 2), uncertaintyMs: roundTripMs / 2 };
}

/** Out of bounds only when certainly so: a slow round trip alone never fails readiness. */
export function isBeyond({ skewMs, uncertaintyMs }: ClockReading, maxMs: number): boolean {
  return Math.abs(skewMs) - uncertaintyMs > maxMs;
}

/**
 * On PostgreSQL the trail is dated by the database's clock (databaseClock), but this instance still
 * reads its own for tokens' lifetimes, limit windows and logs. Every CHECK_INTERVAL_MS it compares the
 * two; while they differ by more than CLOCK_SKEW_MAX_MS readiness fails, and each change of state is
 * logged once. On SQLite the database's clock is this machine's, so there is nothing to compare.
 */
@Injectable()
export class DatabaseClockCheck implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Clock');
  private skewed = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly db: Kysely<DB>,
    @Inject(DATABASE_CLOCK_CONFIG) private readonly config: DatabaseClockConfig,
  ) {}

  /** The first comparison is made before the server listens, so readiness is right from its first answer. */
  async onApplicationBootstrap(): Promise<void> {
    if (isPostgres(this.db)) {
      await this.checkAndSchedule();
    }
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  isSkewed(): boolean {
    return this.skewed;
  }

  private async checkAndSchedule(): Promise<void> {
    await this.check();
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.checkAndSchedule(), CHECK_INTERVAL_MS).unref();
    }
  }

  private async check(): Promise<void> {
    let reading: ClockReading;
    try {
      const sentAt = Date.now();
      const started = performance.now();
      const { rows } = await sql<{ now_ms: string | number }>`select extract(epoch from clock_timestamp()) * 1000 as now_ms`.execute(this.db);
      reading = readingOf(sentAt, Number(rows[0].now_ms), performance.now() - started);
    } catch {
      // An unreachable database fails readiness by itself; the last reading stands until one succeeds.
      return;
    }
    const max = this.config.clockSkewMaxMs;
    const skewed = isBeyond(reading, max);
    if (skewed === this.skewed) {
      return;
    }
    this.skewed = skewed;
    const skew = Math.round(Math.abs(reading.skewMs));
    const direction = reading.skewMs < 0 ? 'ahead of' : 'behind';
    if (skewed) {
      this.logger.error(`This instance's clock is ${skew} ms ${direction} the database's, more than CLOCK_SKEW_MAX_MS (${max} ms): not ready until they agree`);
    } else {
      this.logger.log(`This instance's clock agrees with the database's again (${skew} ms ${direction} it, within ${max} ms)`);
    }
  }
}
