import { Kysely, Migration, MigrationProvider, Migrator } from 'kysely';
import { currentSchema } from './engine';
import * as initial from './migrations/001-initial';
import * as auditChain from './migrations/002-audit-chain';
import * as vesselCounts from './migrations/003-vessel-counts';
import * as auditPending from './migrations/004-audit-pending';
import * as auditTree from './migrations/005-audit-tree';
import * as auditQueryIndexes from './migrations/006-audit-query-indexes';
import * as decommissionRequests from './migrations/007-decommission-requests';
import * as auditTreeWithoutPairs from './migrations/008-audit-tree-without-pairs';
import * as decommissionRequestKinds from './migrations/009-decommission-request-kinds';
import * as decommissionPolicy from './migrations/010-decommission-policy';
import * as importedDecommissions from './migrations/011-imported-decommissions';
import * as deliveryFeeds from './migrations/012-delivery-feeds';
import * as idempotencyKeys from './migrations/013-idempotency-keys';
import * as auditCosignatures from './migrations/014-audit-cosignatures';
import * as decommissionRequestAssets from './migrations/015-decommission-request-assets';
import * as idempotencyKeysAnswersOnly from './migrations/016-idempotency-keys-answers-only';
import * as auditAssetIdsBytewise from './migrations/017-audit-asset-ids-bytewise';

/** Migrations are listed in code, so they run the same from `dist/` and from the test build. */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-audit-chain': auditChain,
  '003-vessel-counts': vesselCounts,
  '004-audit-pending': auditPending,
  '005-audit-tree': auditTree,
  '006-audit-query-indexes': auditQueryIndexes,
  '007-decommission-requests': decommissionRequests,
  '008-audit-tree-without-pairs': auditTreeWithoutPairs,
  '009-decommission-request-kinds': decommissionRequestKinds,
  '010-decommission-policy': decommissionPolicy,
  '011-imported-decommissions': importedDecommissions,
  '012-delivery-feeds': deliveryFeeds,
  '013-idempotency-keys': idempotencyKeys,
  '014-audit-cosignatures': auditCosignatures,
  '015-decommission-request-assets': decommissionRequestAssets,
  '016-idempotency-keys-answers-only': idempotencyKeysAnswersOnly,
  '017-audit-asset-ids-bytewise': auditAssetIdsBytewise,
};

/** Every migration's name, in order: what a database that is not there yet lacks. */
export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

class InCodeMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export class DatabaseNotMigratedError extends Error {
  constructor(pending: string[]) {
    super(`The database lacks migrations ${pending.join(', ')}: run npm run db:migrate, or start with MIGRATE_ON_START=true`);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migrator works on any schema
async function migratorFor(db: Kysely<any>): Promise<Migrator> {
  return new Migrator({ db, provider: new InCodeMigrationProvider(), migrationTableSchema: await currentSchema(db) });
}

/** For an instance that does not migrate: it refuses to serve a schema older than its code. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migrator works on any schema
export async function assertMigrated(db: Kysely<any>): Promise<void> {
  const pending = (await (await migratorFor(db)).getMigrations()).filter(({ executedAt }) => executedAt === undefined);
  if (pending.length > 0) {
    throw new DatabaseNotMigratedError(pending.map(({ name }) => name));
  }
}

/** Applies what is pending, under Kysely's migration lock, and returns the names applied. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const { error, results = [] } = await (await migratorFor(db)).migrateToLatest();
  const failed = results.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return results.map((result) => result.migrationName);
}

/** `db` migrated (or, without `migrate`, its migrations checked), and closed again when that fails. */
export async function migratedOrClosed<T>(db: Kysely<T>, migrate: boolean): Promise<Kysely<T>> {
  try {
    await (migrate ? migrateToLatest(db) : assertMigrated(db));
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
