import '../runtime';
import 'reflect-metadata';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { auditEventBatches, AuditQueryRepository } from '../audit';
import { loadDatabaseConfig } from '../config';
import { assertMigrated, createDatabase, describeLocation } from '../database';
import { assertDatabaseExists, count, forDataCommand } from './command-support';
import { AUDIT_EXPORT_USAGE, parseAuditExportArguments } from './data-arguments';
import { writeOutputFile } from './output-file';
import { runCommand } from './run-command';

/** The audit trail for a SIEM: NDJSON, one event a line, on stdout or into a file, and one line on stderr saying what was written. */
runCommand({
  script: 'audit:export',
  usage: AUDIT_EXPORT_USAGE,
  parse: parseAuditExportArguments,
  async run(args) {
    const config = forDataCommand(loadDatabaseConfig());
    assertDatabaseExists(config.database);
    const db = createDatabase(config.database);
    try {
      await assertMigrated(db);
      let events = 0;
      let lastId: number | undefined;
      const lines = async function* () {
        for await (const batch of auditEventBatches(new AuditQueryRepository(db), args.from)) {
          events += batch.length;
          lastId = batch[batch.length - 1].id;
          yield batch.map((event) => `${JSON.stringify(event)}\n`).join('');
        }
      };
      const source = Readable.from(lines());
      await (args.output ? writeOutputFile(args.output.file, source, args.output) : pipeline(source, process.stdout));
      console.error(
        `Exported ${count(events)} audit events from ${describeLocation(config.database)}` +
          (lastId === undefined ? '' : `, the last with id ${lastId} (go on with --after-id ${lastId})`),
      );
    } finally {
      await db.destroy();
    }
  },
});
