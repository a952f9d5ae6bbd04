import '../runtime';
import { Readable } from 'node:stream';
import { AssetsRepository } from '../assets';
import { loadDatabaseConfig } from '../config';
import { describeLocation } from '../database';
import { FleetRepository } from '../fleet';
import { RecordExportService } from '../import';
import { assertDatabaseExists, forDataCommand, openDataDatabase } from './command-support';
import { EXPORT_USAGE, parseExportArguments } from './data-arguments';
import { writeOutputFile } from './output-file';
import { runCommand } from './run-command';

runCommand({
  script: 'db:export',
  usage: EXPORT_USAGE,
  parse: parseExportArguments,
  async run(args) {
    const config = forDataCommand(loadDatabaseConfig());
    assertDatabaseExists(config.database);
    const db = await openDataDatabase(config);
    try {
      const started = performance.now();
      const exporter = new RecordExportService(new AssetsRepository(db), new FleetRepository(db));
      await writeOutputFile(args.file, Readable.from(exporter.export(args.layout)), { force: args.force });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`Exported ${describeLocation(config.database)} to ${args.file} (${args.layout.format}) in ${seconds} s`);
    } finally {
      await db.destroy();
    }
  },
});
