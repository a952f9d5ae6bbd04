import '../runtime';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { AssetsRepository } from '../assets';
import { loadDatabaseConfig } from '../config';
import { describeLocation, TransactionRunner } from '../database';
import { FleetRepository } from '../fleet';
import { type ImportSummary, readRecords, RecordImportService } from '../import';
import { count, forDataCommand, openDataDatabase } from './command-support';
import { IMPORT_USAGE, parseFileArguments } from './data-arguments';
import { ImportProgress } from './import-progress';
import { runCommand } from './run-command';

const describeCounts = (summary: ImportSummary) =>
  (['assets', 'vessels'] as const).map((list) => `${list}: ${count(summary[list].inserted)} inserted, ${count(summary[list].updated)} updated`).join('; ');

runCommand({
  script: 'db:import',
  usage: IMPORT_USAGE,
  parse: parseFileArguments,
  async run(args) {
    const { size } = await stat(args.file);
    const config = forDataCommand(loadDatabaseConfig());
    const db = await openDataDatabase(config);
    const input = createReadStream(args.file);
    const progress = new ImportProgress(process.stderr, size, () => input.bytesRead);
    try {
      const importer = new RecordImportService(new AssetsRepository(db), new FleetRepository(db), new TransactionRunner(db));
      const summary = await importer.importRecords(readRecords(input, args.file, args.layout), progress.report);
      progress.finish();
      const seconds = progress.elapsed();
      console.log(
        `Imported ${count(summary.recordsRead)} records from ${args.file} into ${describeLocation(config.database)} ` +
          `in ${seconds.toFixed(1)} s (${count(Math.round(summary.recordsRead / seconds))} records/s). ${describeCounts(summary)}`,
      );
    } finally {
      progress.finish();
      input.destroy();
      await db.destroy();
    }
  },
});
