import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { NestFactory } from '@nestjs/core';
import { ConfigModule, loadAppConfig } from '../config';
import { DatabaseModule, describeLocation } from '../database';
import { ImportModule, RecordImportService } from '../import';

async function main(): Promise<void> {
  const [file] = process.argv.slice(2);
  if (!file) {
    throw new Error('usage: npm run db:import -- <file.json>');
  }
  const records: unknown = JSON.parse(await readFile(file, 'utf8'));
  // The import writes exactly what the file holds: no demo seed on an empty database.
  const config = { ...loadAppConfig(), seedDemo: false };
  const context = await NestFactory.createApplicationContext(
    { module: class ImportCli {}, imports: [ConfigModule.forRoot(config), DatabaseModule, ImportModule] },
    { logger: ['error', 'warn'] },
  );
  try {
    const summary = await context.get(RecordImportService).import(records, ({ list, written, total }) =>
      console.error(`${list}: ${written}/${total} written`),
    );
    console.log(`Imported ${summary.assets} assets and ${summary.vessels} vessels into ${describeLocation(config.database)}`);
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
