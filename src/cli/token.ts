import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { TokenModule, TokenService } from '../auth';
import { ConfigModule, loadAppConfig, privateTokenKey } from '../config';

const USAGE =
  'usage: npm run token -- --sub <officer> --clearance <0-10> [--ttl 1h] [--kid <kid of JWT_SECRET>] [--private-key <file.pem> --kid <kid>]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      clearance: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      kid: { type: 'string' },
      'private-key': { type: 'string' },
    },
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
    const tokens = context.get(TokenService);
    const privateKey = values['private-key'];
    const signingKey = privateKey
      ? privateTokenKey(readFileSync(privateKey, 'utf8'), values.kid)
      : values.kid === undefined
        ? undefined
        : (tokens.secret(values.kid) ?? null);
    if (signingKey === null) {
      throw new RangeError(`JWT_SECRET names no kid "${values.kid}"`);
    }
    process.stdout.write(`${tokens.issue(values.sub, Number(values.clearance), values.ttl, signingKey)}\n`);
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
