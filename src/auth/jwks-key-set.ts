import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { algorithmOf, type TokenKey } from '../config';

/** Keys older than this are fetched again before use, so a key withdrawn from the JWKS stops working. */
const MAX_AGE_MS = 10 * 60_000;

export interface JwksOptions {
  url: string;
  timeoutMs: number;
  /** At most one fetch per interval, whatever the tokens ask for. */
  refreshMs: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The signing keys of a JWKS document by kid; keys without a kid, or of a type we do not use, are skipped. */
export function parseJwks(document: unknown): Map<string, TokenKey> {
  if (!isObject(document) || !Array.isArray(document.keys)) {
    throw new TypeError('the answer is not a JWKS document');
  }
  const keys = new Map<string, TokenKey>();
  for (const jwk of document.keys as unknown[]) {
    if (!isObject(jwk) || typeof jwk.kid !== 'string' || (jwk.use !== undefined && jwk.use !== 'sig')) {
      continue;
    }
    try {
      const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
      const alg = algorithmOf(key);
      if (jwk.alg === undefined || jwk.alg === alg) {
        keys.set(jwk.kid, { kid: jwk.kid, alg, key: key.export({ type: 'spki', format: 'pem' }) as string });
      }
    } catch {
      // One unusable key does not spoil the others.
    }
  }
  return keys;
}

/**
 * Keys fetched from JWT_JWKS_URL. A request never waits longer than the fetch timeout, a fetch that
 * fails or times out counts against the refresh interval, and concurrent requests share one fetch:
 * a JWKS server that hangs or answers garbage gets one request per interval and costs 401s, not hangs.
 */
export class JwksKeySet {
  private keys = new Map<string, TokenKey>();
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private pending?: Promise<void>;
  private readonly logger = new Logger('JwksKeySet');

  constructor(private readonly options: JwksOptions) {}

  async find(kid: string): Promise<TokenKey | undefined> {
    const stale = Date.now() - this.fetchedAt > MAX_AGE_MS;
    const mayFetch = Date.now() - this.attemptedAt >= this.options.refreshMs;
    // A fetch under way is waited for, so that the requests arriving meanwhile see its keys.
    if (this.pending || ((stale || !this.keys.has(kid)) && mayFetch)) {
      await this.refresh();
    }
    return Date.now() - this.fetchedAt > MAX_AGE_MS ? undefined : this.keys.get(kid);
  }

  private refresh(): Promise<void> {
    this.pending ??= this.fetchKeys().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = Date.now();
    try {
      const response = await fetch(this.options.url, {
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
        headers: { accept: 'application/jwk-set+json, application/json' },
      });
      if (response.status !== 200) {
        throw new Error(`answered ${response.status}`);
      }
      this.keys = parseJwks(await response.json());
      this.fetchedAt = Date.now();
    } catch (error) {
      this.logger.warn(`JWKS not refreshed from ${this.options.url}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
