import 'reflect-metadata';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { NestFactory } from '@nestjs/core';
import { ConfigModule, loadAppConfig } from '../config';
import { DatabaseModule, describeLocation } from '../database';
import { type ImportSummary, ImportModule, readRecords, RecordImportService } from '../import';
import { count, failCommand, forDataCommand } from './command-support';
import { IMPORT_USAGE, parseFileArguments } from './data-arguments';
import { ImportProgress } from './import-progress';

const describeCounts = (summary: ImportSummary) =>
  (['assets', 'vessels'] as const).map((list) => `${list}: ${count(summary[list].inserted)} inserted, ${count(summary[list].updated)} updated`).join('; ');

async function main(): Promise<void> {
  const args = parseFileArguments('db:import', process.argv.slice(2));
  if ('help' in args) {
    process.stdout.write(`${IMPORT_USAGE}\n`);
    return;
  }
  const { size } = await stat(args.file);
  const config = forDataCommand(loadAppConfig());
  const context = await NestFactory.createApplicationContext(
    { module: class ImportCli {}, imports: [ConfigModule.forRoot(config), DatabaseModule, ImportModule] },
    { logger: ['error', 'warn'] },
  );
  const input = createReadStream(args.file);
  const progress = new ImportProgress(process.stderr, size, () => input.bytesRead);
  try {
    const summary = await context.get(RecordImportService).importRecords(readRecords(input, args.file, args.layout), progress.report);
    progress.finish();
    const seconds = progress.elapsed();
    console.log(
      `Imported ${count(summary.recordsRead)} records from ${args.file} into ${describeLocation(config.database)} ` +
        `in ${seconds.toFixed(1)} s (${count(Math.round(summary.recordsRead / seconds))} records/s). ${describeCounts(summary)}`,
    );
  } finally {
    progress.finish();
    input.destroy();
    await context.close();
  }
}

main().catch(failCommand);
