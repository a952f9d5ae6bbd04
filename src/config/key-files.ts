import { createPrivateKey, type KeyObject } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { ConfigurationError } from './environment';

/** A private key read from a file, and, outside production, what is wrong with the file's permissions. */
export interface PrivateKeyFile {
  key: KeyObject;
  /** One line naming the file, its mode and the fix, for the start-up log; absent when only its owner may read it. */
  warning?: string;
}

/** Why a key file could not be read, by the code of the error. */
const UNREADABLE: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: "permission denied: the service's user cannot read it",
  EISDIR: 'a folder, not a file',
};

/**
 * The mode bits that let others than the owner at a private key: any for others, any for the group,
 * except read when root owns the file, as a secret volume (Kubernetes with fsGroup, Docker secrets)
 * gives a key to a service that does not run as root; PostgreSQL allows its TLS key the same.
 */
function exposedBits({ mode, uid }: Stats): number {
  return mode & (uid === 0 ? 0o037 : 0o077);
}

/**
 * The Ed25519 private key in the PEM file a variable names; any other file stops the start-up, naming
 * the variable. So does, in production, a file others than its owner may read or change; outside
 * production such a file is read, with a warning.
 */
export function readEd25519PrivateKey(variable: string, file: string, production: boolean): PrivateKeyFile {
  let key: KeyObject;
  let stats: Stats;
  try {
    const descriptor = openSync(file, 'r');
    try {
      // The mode of the file read, not of whatever is at the path a moment later.
      stats = fstatSync(descriptor);
      key = createPrivateKey(readFileSync(descriptor, 'utf8'));
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    const reason = UNREADABLE[(error as NodeJS.ErrnoException).code ?? ''] ?? 'not a private key in PEM';
    throw new ConfigurationError(`Invalid configuration: ${variable} ${file}: ${reason}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new ConfigurationError(`Invalid configuration: ${variable} ${file}: an Ed25519 key is needed, this is ${key.asymmetricKeyType}`);
  }
  if (exposedBits(stats) === 0) {
    return { key };
  }
  const mode = `0${(stats.mode & 0o777).toString(8).padStart(3, '0')}`;
  const problem = `${variable} ${file} has mode ${mode}: others than its owner may read or change this private key, which NODE_ENV=production refuses. Run chmod 600 ${file}`;
  if (production) {
    throw new ConfigurationError(`Invalid configuration: ${problem}`);
  }
  return { key, warning: problem };
}
