import { Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Kysely } from 'kysely';
import { APP_CONFIG, type AppConfig } from '../config';
import { UNAVAILABILITY_CHECK } from '../common';
import { createDatabase, isDatabaseUnavailable } from './create-database';
import { DatabaseHealth } from './database-health';
import type { DB } from './database.types';
import { migrateToLatest } from './migrate';
import { TransactionRunner } from './transaction-runner';

@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly db: Kysely<DB>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.migrateOnStart) {
      await migrateToLatest(this.db);
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.db.destroy();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: Kysely,
      useFactory: (config: AppConfig) => createDatabase(config.database),
      inject: [APP_CONFIG],
    },
    { provide: UNAVAILABILITY_CHECK, useValue: isDatabaseUnavailable },
    DatabaseLifecycle,
    DatabaseHealth,
    TransactionRunner,
  ],
  exports: [Kysely, DatabaseHealth, TransactionRunner, UNAVAILABILITY_CHECK],
})
export class DatabaseModule {}
