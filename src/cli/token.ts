import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { TokenModule, TokenService } from '../auth';
import { ConfigModule, loadAppConfig } from '../config';

const USAGE = 'usage: npm run token -- --sub <officer> --clearance <0-10> [--ttl 1h]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { sub: { type: 'string' }, clearance: { type: 'string' }, ttl: { type: 'string', default: '1h' } },
  });
  if (!values.sub || values.clearance === undefined || !/^[0-9]+$/.test(values.clearance)) {
    throw new RangeError(USAGE);
  }
  const config = loadAppConfig();
  const context = await NestFactory.createApplicationContext(
    { module: class TokenCli {}, imports: [ConfigModule.forRoot(config), TokenModule] },
    { logger: false },
  );
  try {
    process.stdout.write(`${context.get(TokenService).issue(values.sub, Number(values.clearance), values.ttl)}\n`);
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
