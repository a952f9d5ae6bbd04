import { existsSync } from 'node:fs';
import { Global, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Kysely } from 'kysely';
import { DATABASE_CONFIG, type DatabaseConfig, TRACING_CONFIG, type TracingConfig } from '../config';
import { ServiceUnavailableError, StorageUnavailableError, UNAVAILABILITY_CHECK, type UnavailabilityCheck } from '../common';
import { createDatabase } from './create-database';
import { DatabaseClockCheck } from './database-clock';
import { isDatabaseUnavailable } from './database-errors';
import { DatabaseHealth } from './database-health';
import type { DB } from './database.types';
import { DatabaseNotMigratedError, MIGRATION_NAMES, migratedOrClosed } from './migrate';
import { PlannerStatistics } from './planner-statistics';
import { TransactionRunner } from './transaction-runner';

/**
 * The database, reached and migrated (or its migrations checked) before any provider that needs it is
 * made: what those write beside it, such as a generated audit signing key, a start that cannot reach it
 * never writes.
 */
async function openMigrated(config: DatabaseConfig, tracing?: TracingConfig): Promise<Kysely<DB>> {
  const { database } = config;
  if (!config.migrateOnStart && database.dialect === 'sqlite' && database.path !== ':memory:' && !existsSync(database.path)) {
    // Refused before opening it, which would leave an empty file behind.
    throw new DatabaseNotMigratedError(MIGRATION_NAMES);
  }
  return migratedOrClosed(createDatabase(database, { traced: tracing !== undefined }), config.migrateOnStart);
}

@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(private readonly db: Kysely<DB>) {}

  async onApplicationShutdown(): Promise<void> {
    await this.db.destroy();
    new Logger('Shutdown').log('Database closed');
  }
}

@Global()
@Module({
  providers: [
    {
      provide: Kysely,
      useFactory: openMigrated,
      inject: [DATABASE_CONFIG, TRACING_CONFIG],
    },
    {
      provide: UNAVAILABILITY_CHECK,
      useFactory:
        (health: DatabaseHealth): UnavailabilityCheck =>
        (error) => {
          if (health.failedToStore(error)) {
            return new StorageUnavailableError('The service cannot store data at the moment; nothing was changed');
          }
          return isDatabaseUnavailable(error) ? new ServiceUnavailableError('The service is temporarily unavailable') : undefined;
        },
      inject: [DatabaseHealth],
    },
    DatabaseLifecycle,
    DatabaseHealth,
    DatabaseClockCheck,
    PlannerStatistics,
    TransactionRunner,
  ],
  exports: [Kysely, DatabaseHealth, DatabaseClockCheck, TransactionRunner, UNAVAILABILITY_CHECK],
})
export class DatabaseModule {}
