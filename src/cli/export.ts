import '../runtime';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AssetsRepository } from '../assets';
import { loadDatabaseConfig } from '../config';
import { describeLocation } from '../database';
import { FleetRepository } from '../fleet';
import { RecordExportService } from '../import';
import { forDataCommand, openDataDatabase } from './command-support';
import { EXPORT_USAGE, parseFileArguments } from './data-arguments';
import { runCommand } from './run-command';

runCommand({
  script: 'db:export',
  usage: EXPORT_USAGE,
  parse: parseFileArguments,
  async run(args) {
    const config = forDataCommand(loadDatabaseConfig());
    const db = await openDataDatabase(config);
    try {
      const started = performance.now();
      const exporter = new RecordExportService(new AssetsRepository(db), new FleetRepository(db));
      await pipeline(Readable.from(exporter.export(args.layout)), createWriteStream(args.file));
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`Exported ${describeLocation(config.database)} to ${args.file} (${args.layout.format}) in ${seconds} s`);
    } finally {
      await db.destroy();
    }
  },
});
