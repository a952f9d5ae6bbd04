import 'reflect-metadata';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NestFactory } from '@nestjs/core';
import { ConfigModule, loadAppConfig } from '../config';
import { DatabaseModule, describeLocation } from '../database';
import { ImportModule, RecordExportService } from '../import';
import { failCommand, forDataCommand } from './command-support';
import { EXPORT_USAGE, parseFileArguments } from './data-arguments';

async function main(): Promise<void> {
  const args = parseFileArguments('db:export', process.argv.slice(2));
  if ('help' in args) {
    process.stdout.write(`${EXPORT_USAGE}\n`);
    return;
  }
  const config = forDataCommand(loadAppConfig());
  const context = await NestFactory.createApplicationContext(
    { module: class ExportCli {}, imports: [ConfigModule.forRoot(config), DatabaseModule, ImportModule] },
    { logger: ['error', 'warn'] },
  );
  try {
    const started = performance.now();
    await pipeline(Readable.from(context.get(RecordExportService).export(args.layout)), createWriteStream(args.file));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`Exported ${describeLocation(config.database)} to ${args.file} (${args.layout.format}) in ${seconds} s`);
  } finally {
    await context.close();
  }
}

main().catch(failCommand);
