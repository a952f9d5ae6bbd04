import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Kysely } from 'kysely';
import { DATABASE_CONFIG, type DatabaseConfig, TRACING_CONFIG, type TracingConfig } from '../config';
import { ServiceUnavailableError, StorageUnavailableError, UNAVAILABILITY_CHECK, type UnavailabilityCheck } from '../common';
import { createDatabase } from './create-database';
import { DatabaseClockCheck } from './database-clock';
import { isDatabaseUnavailable } from './database-errors';
import { DatabaseHealth } from './database-health';
import type { DB } from './database.types';
import { assertMigrated, migrateToLatest } from './migrate';
import { TransactionRunner } from './transaction-runner';

@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly db: Kysely<DB>,
    @Inject(DATABASE_CONFIG) private readonly config: DatabaseConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await (this.config.migrateOnStart ? migrateToLatest(this.db) : assertMigrated(this.db));
  }

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
      useFactory: (config: DatabaseConfig, tracing?: TracingConfig) => createDatabase(config.database, { traced: tracing !== undefined }),
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
    TransactionRunner,
  ],
  exports: [Kysely, DatabaseHealth, DatabaseClockCheck, TransactionRunner, UNAVAILABILITY_CHECK],
})
export class DatabaseModule {}
