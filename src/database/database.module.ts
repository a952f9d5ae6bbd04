import { Global, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Kysely, sql } from 'kysely';
import { APP_CONFIG, type AppConfig } from '../config';
import { createDatabase } from './create-database';
import type { DB } from './database.types';
import { migrateToLatest } from './migrate';
import { TransactionRunner } from './transaction-runner';

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

@Injectable()
class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly db: Kysely<DB>) {}

  onModuleInit(): Promise<void> {
    return migrateToLatest(this.db);
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
    DatabaseLifecycle,
    DatabaseHealth,
    TransactionRunner,
  ],
  exports: [Kysely, DatabaseHealth, TransactionRunner],
})
export class DatabaseModule {}
