import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCRIPTS } from './processes';

/*
 * Witnesses for the tests: `audit:witness serve` as real processes, and C2SP verifier keys and
 * cosignature checks written here from the specifications (signed-note, tlog-cosignature), apart from
 * the service's code.
 */

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const rawKey = (key: KeyObject) => Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url');

/** A C2SP verifier key: `<name>+<hex(SHA-256(name || 0x0A || type || key)[:4])>+<base64(type || key)>`. */
export function verifierKey(name: string, key: KeyObject, type: number): string {
  const typed = Buffer.concat([Buffer.from([type]), rawKey(key)]);
  return `${name}+${sha256(Buffer.from(`${name}\n`), typed).subarray(0, 4).toString('hex')}+${typed.toString('base64')}`;
}

/** The time of a valid Ed25519 cosignature line by `name`'s `key` over the checkpoint text `body`; undefined otherwise. */
export function checkCosignature(line: string, body: string, name: string, key: KeyObject): number | undefined {
  const match = /^\u2014 (\S+) (\S+)$/.exec(line);
  if (match?.[1] !== name) {
    return undefined;
  }
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length !== 76) {
    return undefined;
  }
  const keyId = sha256(Buffer.from(`${name}\n`), Buffer.from([0x04]), rawKey(key)).subarray(0, 4);
  const time = Number(bytes.readBigUInt64BE(4));
  const message = Buffer.from(`cosignature/v1\ntime ${time}\n${body}`);
  return bytes.subarray(0, 4).equals(keyId) && verify(null, message, createPublicKey(key), bytes.subarray(12)) ? time : undefined;
}

export interface TestWitness {
  name: string;
  key: KeyObject;
  keyFile: string;
  /** Its verifier key (type 0x04), for AUDIT_WITNESSES. */
  vkey: string;
  state: string;
}

/** A witness's name, key (written to a PEM file in `dir`) and state folder. */
export function makeWitness(dir: string, name: string): TestWitness {
  const { privateKey } = generateKeyPairSync('ed25519');
  const keyFile = join(dir, `${name.replaceAll('/', '-')}.pem`);
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return { name, key: privateKey, keyFile, vkey: verifierKey(name, privateKey, 0x04), state: join(dir, `${name.replaceAll('/', '-')}-state`) };
}

export interface RunningWitness {
  url: string;
  child: ChildProcess;
  output: () => string;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
}

/** Starts `npm run audit:witness -- serve` on a free port for the log of `logKey`; resolves once it prints its verifier key. */
export async function startWitness(witness: TestWitness, logKey: string, port = 0): Promise<RunningWitness> {
  const args = ['serve', '--listen', `127.0.0.1:${port}`, '--name', witness.name, '--key', witness.keyFile, '--state', witness.state, '--log', logKey];
  const child = spawn(process.execPath, [SCRIPTS.auditWitness, ...args], { env: { PATH: process.env.PATH }, stdio: 'pipe' });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const kill = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await once(child, 'exit');
    }
  };
  const deadline = Date.now() + 30_000;
  while (!/Witness verifier key: /.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await kill();
      throw new Error(`the witness did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const listening = /listening on 127\.0\.0\.1:(\d+)/.exec(output) as RegExpExecArray;
  return { url: `http://127.0.0.1:${listening[1]}`, child, output: () => output, kill };
}
