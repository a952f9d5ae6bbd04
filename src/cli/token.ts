import '../runtime';
import { readFileSync } from 'node:fs';
import { TokenService } from '../auth';
import { loadTokenConfig, privateTokenKey } from '../config';
import { runCommand } from './run-command';
import { parseTokenArguments, TOKEN_USAGE } from './token-arguments';

runCommand({
  script: 'token',
  usage: TOKEN_USAGE,
  parse: parseTokenArguments,
  async run(args) {
    const tokens = TokenService.fromConfig(loadTokenConfig());
    const signingKey = args.privateKey
      ? privateTokenKey(readFileSync(args.privateKey, 'utf8'), args.kid)
      : args.kid === undefined
        ? undefined
        : (tokens.secret(args.kid) ?? null);
    if (signingKey === null) {
      throw new RangeError(`JWT_SECRET names no kid "${args.kid}"`);
    }
    process.stdout.write(`${tokens.issue(args.sub, args.clearance, args.ttl, signingKey)}\n`);
  },
});
