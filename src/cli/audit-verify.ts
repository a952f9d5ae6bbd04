import 'reflect-metadata';
import { AuditChainVerifier, AuditRepository, CHAIN_PROBLEMS } from '../audit';
import { loadDatabaseConfig } from '../config';
import { assertMigrated, createDatabase, describeLocation } from '../database';
import { AUDIT_VERIFY_USAGE, parseNoArguments } from './data-arguments';
import { runCommand } from './run-command';

/** Exit code 0 and one line when the audit chain is intact; 1 and the first broken event when it is not. */
runCommand({
  script: 'audit:verify',
  usage: AUDIT_VERIFY_USAGE,
  parse: parseNoArguments,
  async run() {
    const config = loadDatabaseConfig();
    const db = createDatabase(config.database);
    try {
      await assertMigrated(db);
      const result = await new AuditChainVerifier(new AuditRepository(db)).verify();
      const where = describeLocation(config.database);
      if (result.state === 'intact') {
        console.log(`Audit chain intact: ${result.length} events, head ${result.head_hash} (${where})`);
        return;
      }
      const problem = result.problem as keyof typeof CHAIN_PROBLEMS;
      console.error(
        `Audit chain broken at event ${result.first_broken_event_id} (${problem}): ${CHAIN_PROBLEMS[problem]}. ` +
          `The head records ${result.length} events, head ${result.head_hash} (${where})`,
      );
      process.exitCode = 1;
    } finally {
      await db.destroy();
    }
  },
});
