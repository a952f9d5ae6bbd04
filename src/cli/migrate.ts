import '../runtime';
import { loadDatabaseConfig } from '../config';
import { createDatabase, describeLocation, migrateToLatest } from '../database';
import { MIGRATE_USAGE, parseNoArguments } from './data-arguments';
import { runCommand } from './run-command';

/** For deployments that migrate once before starting instances with MIGRATE_ON_START=false. */
runCommand({
  script: 'db:migrate',
  usage: MIGRATE_USAGE,
  parse: parseNoArguments,
  async run() {
    const config = loadDatabaseConfig();
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
  },
});
