import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigurationError } from './environment';

/** The Ed25519 private key in the PEM file a variable names; any other file stops the start-up, naming the variable. */
export function readEd25519PrivateKey(variable: string, file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not a private key in PEM';
    throw new ConfigurationError(`Invalid configuration: ${variable} ${file}: ${reason}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new ConfigurationError(`Invalid configuration: ${variable} ${file}: an Ed25519 key is needed, this is ${key.asymmetricKeyType}`);
  }
  return key;
}
