import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { algorithmOf, type TokenKey } from '../config';

export interface JwksOptions {
  url: string;
  timeoutMs: number;
  /** At most one fetch per interval, whatever the tokens ask for. */
  refreshMs: number;
  /** Bounds on the answer's Cache-Control max-age: the set is fetched again once that age is reached. */
  minAgeMs: number;
  maxAgeMs: number;
  /** How long past its age the last good set is still used while the provider cannot be reached. */
  staleMs: number;
}

/** What the JWKS cache can tell readiness: fresh keys, an old set served while the provider is down, or none. */
export type JwksState = 'fresh' | 'stale' | 'unavailable';

/**
 * How long the answer may be kept, in ms: its `max-age` within the bounds; `no-store`, `no-cache` or a
 * `max-age` of 0 keep it for the minimum, and an answer that says nothing for the maximum.
 */
export function cacheLifetime(cacheControl: string | null, minAgeMs: number, maxAgeMs: number): number {
  const directives = (cacheControl ?? '').toLowerCase().split(',').map((directive) => directive.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) {
    return minAgeMs;
  }
  const maxAge = directives.map((directive) => /^max-age="?(\d{1,10})"?$/.exec(directive)).find(Boolean);
  const ms = maxAge ? Number(maxAge[1]) * 1000 : maxAgeMs;
  return Math.min(maxAgeMs, Math.max(minAgeMs, ms));
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
 * The set is fetched again once the age its answer allowed has passed, so a key removed from the JWKS
 * is refused from then on; while the provider cannot be reached, the last good set serves for up to
 * `staleMs` more.
 */
export class JwksKeySet {
  private keys = new Map<string, TokenKey>();
  /** When the set must be fetched again; past it plus staleMs it is not used at all. */
  private expiresAt = -Infinity;
  private attemptedAt = -Infinity;
  private pending?: Promise<void>;
  private readonly logger = new Logger('JwksKeySet');

  constructor(private readonly options: JwksOptions) {}

  async find(kid: string): Promise<TokenKey | undefined> {
    const { refreshMs, minAgeMs } = this.options;
    const sinceAttempt = Date.now() - this.attemptedAt;
    // A set past its age is fetched at once (after a failure, again within the shorter interval); an
    // unknown kid fetches at most once per refresh interval. A fetch under way is waited for, so that
    // the requests arriving meanwhile see its keys.
    const expired = Date.now() >= this.expiresAt && sinceAttempt >= Math.min(refreshMs, minAgeMs);
    if (this.pending || expired || (!this.keys.has(kid) && sinceAttempt >= refreshMs)) {
      await this.refresh();
    }
    return this.state() === 'unavailable' ? undefined : this.keys.get(kid);
  }

  state(): JwksState {
    const now = Date.now();
    if (now < this.expiresAt) {
      return 'fresh';
    }
    return now < this.expiresAt + this.options.staleMs ? 'stale' : 'unavailable';
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
      this.expiresAt = Date.now() + cacheLifetime(response.headers.get('cache-control'), this.options.minAgeMs, this.options.maxAgeMs);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const serving = this.state() === 'stale' ? 'the last good set is used until it is too old' : 'no keys are used from it';
      this.logger.warn(`JWKS not refreshed from ${this.options.url}: ${reason}; ${serving}`);
    }
  }
}
