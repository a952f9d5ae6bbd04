import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type TokenAlgorithm = 'HS256' | 'RS256' | 'ES256' | 'EdDSA';

/** A key as fast-jwt takes it (a secret, or a PEM), with the one algorithm it is used with. */
export interface TokenKey {
  /** Absent for the unnamed key, which checks tokens that carry no kid. */
  kid?: string;
  alg: TokenAlgorithm;
  key: string;
}

const MIN_RSA_BITS = 2048;

/**
 * The algorithm follows from the key, never from the token (RFC 8725 §3.1), so a public key can
 * never be used as an HMAC secret.
 */
export function algorithmOf(key: KeyObject): TokenAlgorithm {
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa' && (details?.modulusLength ?? 0) >= MIN_RSA_BITS) {
    return 'RS256';
  }
  if (key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1') {
    return 'ES256';
  }
  if (key.asymmetricKeyType === 'ed25519') {
    return 'EdDSA';
  }
  throw new RangeError(`unsupported key: RSA of ${MIN_RSA_BITS} bits or more (RS256), EC P-256 (ES256) or Ed25519 (EdDSA)`);
}

/** PEM text as it is, anything else as the path of a PEM file. */
export function readPem(value: string): string {
  return value.includes('-----BEGIN ') ? value : readFileSync(value, 'utf8');
}

export function publicTokenKey(pem: string, kid?: string): TokenKey {
  if (pem.includes('PRIVATE KEY')) {
    throw new RangeError('a private key was given where a public key belongs');
  }
  const key = createPublicKey(pem);
  return { kid, alg: algorithmOf(key), key: key.export({ type: 'spki', format: 'pem' }) as string };
}

export function privateTokenKey(pem: string, kid?: string): TokenKey {
  const key = createPrivateKey(pem);
  return { kid, alg: algorithmOf(key), key: key.export({ type: 'pkcs8', format: 'pem' }) as string };
}
