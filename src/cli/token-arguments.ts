import { fail, type Options, parseOptions } from './command-options';

export const TOKEN_USAGE = `usage: npm run token -- --sub <officer> --clearance <0-10> [options]

Prints a bearer token signed with the service's configured key.

  --sub <officer>         the officer the token names (required)
  --clearance <0-10>      a whole number from 0 to 10; 7 or higher may decommission (required)
  --ttl <duration>        lifetime with s, m, h or d, e.g. 15m (default 1h), up to JWT_MAX_LIFETIME_SECONDS
  --kid <kid>             sign with the JWT_SECRET entry of this kid, or name the kid of --private-key
  --private-key <file>    sign with this PEM private key (RS256, ES256 or EdDSA) instead of a secret
  -h, --help              this text`;

export interface TokenArguments {
  sub: string;
  clearance: number;
  ttl: string;
  kid?: string;
  privateKey?: string;
}

const OPTIONS: Options = {
  sub: { type: 'string' },
  clearance: { type: 'string' },
  ttl: { type: 'string' },
  kid: { type: 'string' },
  'private-key': { type: 'string' },
};

/** `help: true` asks for the usage text. */
export function parseTokenArguments(args: string[]): TokenArguments | { help: true } {
  const parsed = parseOptions(args, OPTIONS);
  if ('help' in parsed) {
    return parsed;
  }
  const { text } = parsed;
  const sub = text('sub');
  const clearance = text('clearance');
  if (sub === undefined) {
    fail('--sub is required: the officer the token names');
  }
  if (clearance === undefined) {
    fail('--clearance is required: a whole number from 0 to 10');
  }
  if (!/^(10|[0-9])$/.test(clearance)) {
    fail(`--clearance must be a whole number from 0 to 10, not "${clearance}"`);
  }
  return { sub, clearance: Number(clearance), ttl: text('ttl') ?? '1h', kid: text('kid'), privateKey: text('private-key') };
}
