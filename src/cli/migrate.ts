import { loadAppConfig } from '../config';
import { createDatabase, describeLocation, migrateToLatest } from '../database';

/** For deployments that migrate once before starting instances with MIGRATE_ON_START=false. */
async function main(): Promise<void> {
  const config = loadAppConfig();
  const db = createDatabase(config.database);
  try {
    const applied = await migrateToLatest(db);
    console.log(
      applied.length > 0
        ? `Applied ${applied.join(', ')} to ${describeLocation(config.database)}`
        : `${describeLocation(config.database)} is up to date`,
    );
  } finally {
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
