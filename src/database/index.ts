export { DatabaseModule } from './database.module';
export { DatabaseHealth } from './database-health';
export { TransactionRunner } from './transaction-runner';
export { DedicatedSession } from './dedicated-session';
export { createDatabase, describeLocation, isDatabaseUnavailable, poolUsage, type PoolUsage } from './create-database';
export { assertMigrated, DatabaseNotMigratedError, migrateToLatest } from './migrate';
export * from './database.types';
export { countRows, precompile, readInKeyOrder, selectPage, upsertRows } from './queries';
export type { Page, UpsertCounts } from './queries';
