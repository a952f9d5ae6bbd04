export { DatabaseHealth, DatabaseModule } from './database.module';
export { TransactionRunner } from './transaction-runner';
export { createDatabase } from './create-database';
export { migrateToLatest } from './migrate';
export * from './database.types';
