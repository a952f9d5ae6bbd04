import { parseCosignerKey } from '../audit';
import { fail, parseOptions } from './command-options';

export const AUDIT_VERIFY_USAGE = `usage: npm run audit:verify -- [--checkpoint <file> [--verifier-key <key>] [--witness-key <key> ... [--quorum <n>]]]

Checks the configured database's audit chain and Merkle tree, event by event, and every decommissioned
asset row against the event that recorded its decommission. Exit code 0 and one line when all is
intact; 1 and what is at fault when it is not.

  --checkpoint <file>    also check that the database's first N events have the root of this signed
                         checkpoint (a note as GET /v1/audit/checkpoint serves it): a database rolled
                         back to an older backup, or a trail rebuilt with fresh hashes, fails
  --verifier-key <key>   the C2SP verifier key to check the checkpoint's signature with; by default
                         the key of AUDIT_SIGNING_KEY_FILE, named AUDIT_LOG_ORIGIN
  --witness-key <key>    a witness's verifier key (C2SP, type 0x04), as in AUDIT_WITNESSES; repeat it
                         for each witness. The checkpoint must carry valid cosignatures of --quorum of them
  --quorum <n>           how many of the witnesses given must have cosigned it; all of them by default
  -h, --help             this text`;

export const AUDIT_WITNESS_USAGE = `usage: npm run audit:witness -- --url <base URL> --token <token> --state <file> [--verifier-key <key>] [--watch <seconds>]

Fetches the service's latest signed checkpoint, checks its signature, and that it extends the checkpoint
kept in the state file (by a consistency proof); only then keeps it there. A log that shrank, another
root at the same size, a failed proof or a bad signature: one line saying which, exit code 1, and the
state file left as it was. Run it where the service's operators cannot change the state file.
npm run audit:witness -- serve --help: a witness server that cosigns checkpoints (C2SP tlog-witness).

  --url <base URL>        the service, e.g. https://registry.example.org
  --token <token>         a bearer token of clearance 7 or more
  --state <file>          the witness's state: the verifier key and the last checkpoint accepted;
                          created on the first run, which trusts the checkpoint it finds
  --verifier-key <key>    the C2SP verifier key to check signatures with; by default the state file's,
                          and on the first run the one the service publishes
  --watch <seconds>       witness again every so many seconds until a check fails
  -h, --help              this text`;

export interface VerifyArguments {
  checkpoint?: string;
  verifierKey?: string;
  witnessKeys: string[];
  quorum: number;
}

export function parseVerifyArguments(args: string[]): VerifyArguments | { help: true } {
  const parsed = parseOptions(args, { checkpoint: { type: 'string' }, 'verifier-key': { type: 'string' }, 'witness-key': { type: 'string' }, quorum: { type: 'string' } });
  if ('help' in parsed) {
    return parsed;
  }
  const checkpoint = parsed.text('checkpoint');
  const verifierKey = parsed.text('verifier-key');
  const witnessKeys = parsed.all('witness-key');
  const quorum = parsed.text('quorum');
  for (const [given, option] of [[verifierKey, '--verifier-key'], [witnessKeys[0], '--witness-key']] as const) {
    if (given !== undefined && checkpoint === undefined) {
      fail(`${option} checks a checkpoint: add --checkpoint <file>`);
    }
  }
  for (const key of witnessKeys) {
    try {
      parseCosignerKey(key);
    } catch (error) {
      fail(`--witness-key ${key}: ${(error as Error).message}`);
    }
  }
  if (quorum !== undefined && (!/^[1-9]\d{0,1}$/.test(quorum) || Number(quorum) > witnessKeys.length)) {
    fail(`--quorum must be a whole number from 1 to the number of --witness-key given (${witnessKeys.length}), not "${quorum}"`);
  }
  return { checkpoint, verifierKey, witnessKeys, quorum: quorum === undefined ? witnessKeys.length : Number(quorum) };
}

export interface WitnessArguments {
  url: string;
  token: string;
  state: string;
  verifierKey?: string;
  watchSeconds?: number;
}

export function parseWitnessArguments(args: string[]): WitnessArguments | { help: true } {
  const parsed = parseOptions(args, {
    url: { type: 'string' },
    token: { type: 'string' },
    state: { type: 'string' },
    'verifier-key': { type: 'string' },
    watch: { type: 'string' },
  });
  if ('help' in parsed) {
    return parsed;
  }
  const required = (name: string) => parsed.text(name) ?? fail(`--${name} is required`);
  const url = required('url');
  if (!/^https?:\/\/[^\s/]+/.test(url)) {
    fail(`--url must be the service's base URL, such as https://registry.example.org, not "${url}"`);
  }
  const watch = parsed.text('watch');
  if (watch !== undefined && !/^[1-9]\d{0,5}$/.test(watch)) {
    fail(`--watch must be a whole number of seconds from 1 to 999999, not "${watch}"`);
  }
  return {
    url,
    token: required('token'),
    state: required('state'),
    verifierKey: parsed.text('verifier-key'),
    watchSeconds: watch === undefined ? undefined : Number(watch),
  };
}
