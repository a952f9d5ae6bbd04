import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type NoteVerifier, parseVerifierKey } from '../audit';
import { fail, parseOptions } from './command-options';

export const WITNESS_SERVE_USAGE = `usage: npm run audit:witness -- serve --listen <host:port> --name <witness name> --key <file> --state <folder> --log <verifier key> [--log <verifier key> ...]

Runs a witness that speaks the C2SP tlog-witness protocol (https://c2sp.org/tlog-witness): POST
/add-checkpoint with an old size, a consistency proof and a log's signed checkpoint; it cosigns the
checkpoint (c2sp.org/tlog-cosignature, Ed25519) only when a trusted key of the log signed it and it
extends the checkpoint it cosigned last for that log, kept in --state across restarts. At start it
prints its verifier key, which the log's operators configure (AUDIT_WITNESSES).

  --listen <host:port>   where to listen, e.g. 127.0.0.1:7380 or [::]:7380
  --name <name>          the witness's name, e.g. witness.example.org/w1 (no spaces, no "+")
  --key <file>           its Ed25519 private key, PKCS#8 PEM (openssl genpkey -algorithm ed25519)
  --state <folder>       where it keeps the latest checkpoint it cosigned for each log
  --log <verifier key>   a log's C2SP verifier key, as GET /v1/audit/checkpoint/verifier-key serves it;
                         its name is the log's origin. Repeat for more logs or keys
  -h, --help             this text`;

export interface WitnessServeArguments {
  host: string;
  port: number;
  name: string;
  key: KeyObject;
  state: string;
  /** The keys trusted for each log origin. */
  logs: Map<string, NoteVerifier[]>;
}

const OPTIONS = { listen: { type: 'string' }, name: { type: 'string' }, key: { type: 'string' }, state: { type: 'string' }, log: { type: 'string' } } as const;

function readKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, 'utf8'));
  } catch {
    fail(`--key ${file} is not a readable private key in PEM`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    fail(`--key ${file} is a ${key.asymmetricKeyType ?? 'non-asymmetric'} key, not Ed25519`);
  }
  return key;
}

export function parseWitnessServeArguments(args: string[]): WitnessServeArguments | { help: true } {
  const parsed = parseOptions(args, OPTIONS);
  if ('help' in parsed) {
    return parsed;
  }
  const required = (name: string) => parsed.text(name) ?? fail(`--${name} is required`);
  const listen = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(required('listen'));
  if (!listen || Number(listen[2]) > 65_535) {
    fail('--listen must be <host>:<port>, such as 127.0.0.1:7380');
  }
  const name = required('name');
  if (!/^[\x21-\x2a\x2c-\x7e]{1,255}$/.test(name)) {
    fail('--name must be printable ASCII without spaces or "+", such as witness.example.org/w1');
  }
  const key = readKey(required('key'));
  const logValues = parsed.all('log');
  if (logValues.length === 0) {
    fail('--log is required: the verifier key of each log to witness');
  }
  const logs = new Map<string, NoteVerifier[]>();
  for (const value of logValues) {
    let verifier: NoteVerifier;
    try {
      verifier = parseVerifierKey(value);
    } catch (error) {
      fail(`--log ${value}: ${(error as Error).message}`);
    }
    logs.set(verifier.name, [...(logs.get(verifier.name) ?? []), verifier]);
  }
  return { host: listen[1].replace(/^\[|\]$/g, ''), port: Number(listen[2]), name, key, state: required('state'), logs };
}
