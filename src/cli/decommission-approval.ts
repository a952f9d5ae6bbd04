import '../runtime';
import { DecommissionPolicyRepository } from '../assets';
import { loadDatabaseConfig } from '../config';
import { assertMigrated, createDatabase, describeLocation } from '../database';
import { DECOMMISSION_APPROVAL_USAGE, parsePolicyArguments } from './data-arguments';
import { runCommand } from './run-command';

/** The one deliberate way to change the decommission approval policy that every instance on the database follows. */
runCommand({
  script: 'db:decommission-approval',
  usage: DECOMMISSION_APPROVAL_USAGE,
  parse: parsePolicyArguments,
  async run({ policy }) {
    const config = loadDatabaseConfig();
    const db = createDatabase(config.database);
    try {
      await assertMigrated(db);
      const policies = new DecommissionPolicyRepository(db);
      const where = describeLocation(config.database);
      if (policy === undefined) {
        console.log(`Decommission approval policy: ${(await policies.find()) ?? 'none (never set)'} (${where})`);
        return;
      }
      const previous = await policies.change(policy);
      console.log(`Decommission approval policy: ${policy} (was ${previous ?? 'unset'}) (${where})`);
    } finally {
      await db.destroy();
    }
  },
});
