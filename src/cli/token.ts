import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { TokenModule, TokenService } from '../auth';
import { ConfigModule, loadAppConfig, privateTokenKey } from '../config';
import { parseTokenArguments, TOKEN_USAGE } from './token-arguments';

async function main(): Promise<void> {
  const values = parseTokenArguments(process.argv.slice(2));
  if ('help' in values) {
    process.stdout.write(`${TOKEN_USAGE}\n`);
    return;
  }
  const config = loadAppConfig();
  const context = await NestFactory.createApplicationContext(
    { module: class TokenCli {}, imports: [ConfigModule.forRoot(config), TokenModule] },
    { logger: false },
  );
  try {
    const tokens = context.get(TokenService);
    const signingKey = values.privateKey
      ? privateTokenKey(readFileSync(values.privateKey, 'utf8'), values.kid)
      : values.kid === undefined
        ? undefined
        : (tokens.secret(values.kid) ?? null);
    if (signingKey === null) {
      throw new RangeError(`JWT_SECRET names no kid "${values.kid}"`);
    }
    process.stdout.write(`${tokens.issue(values.sub, values.clearance, values.ttl, signingKey)}\n`);
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
