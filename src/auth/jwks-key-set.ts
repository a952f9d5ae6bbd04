import { createPublicKey } from 'node:crypto';
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

/**
 * What the JWKS cache tells readiness: its keys are in use and refreshed as they should be; the last
 * good set is in use past its age because the provider cannot be reached; or no key of it is trusted.
 */
export type JwksHealth = 'fresh' | 'stale' | 'unavailable';

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
      const key = createPublicKey({ key: jwk, format: 'jwk' });
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
 * `staleMs` more. Each change of its health is logged once.
 */
export class JwksKeySet {
  private keys = new Map<string, TokenKey>();
  // Times are performance.now(): a step of the wall clock (NTP, a VM resumed) must neither refetch at
  // once nor keep a withdrawn key past its max-age.
  /** When the set must be fetched again; past it plus staleMs it is not used at all. */
  private expiresAt = -Infinity;
  private attemptedAt = -Infinity;
  private pending?: Promise<void>;
  /** Why the last fetch failed; undefined once one succeeds. */
  private failure?: string;
  private reported: JwksHealth = 'fresh';
  private readonly logger = new Logger('JwksKeySet');

  constructor(private readonly options: JwksOptions) {}

  async find(kid: string): Promise<TokenKey | undefined> {
    // A set past its age is fetched at once; an unknown kid fetches at most once per refresh interval.
    // A fetch under way is waited for, so that the requests arriving meanwhile see its keys.
    if (this.pending || this.isDue() || (!this.keys.has(kid) && performance.now() - this.attemptedAt >= this.options.refreshMs)) {
      await this.refresh();
    }
    return this.usable() ? this.keys.get(kid) : undefined;
  }

  /** Fetches the set, as before the server listens, so that the first tokens and readiness need not wait for it. */
  async prefetch(): Promise<void> {
    await this.refresh();
  }

  /**
   * For readiness. A set past its age is also fetched again here, in the background, so that an
   * instance that sees no token still notices its provider going away and coming back.
   */
  health(): JwksHealth {
    if (!this.pending && this.isDue()) {
      void this.refresh();
    }
    return this.reportHealth();
  }

  /** Past its age, and no fetch tried within the shorter of the refresh interval and the minimum age (after a failure). */
  private isDue(): boolean {
    const { refreshMs, minAgeMs } = this.options;
    return performance.now() >= this.expiresAt && performance.now() - this.attemptedAt >= Math.min(refreshMs, minAgeMs);
  }

  /** Within its age, or past it by no more than staleMs. */
  private usable(): boolean {
    return performance.now() < this.expiresAt + this.options.staleMs;
  }

  /** The health now, logged when it changed. */
  private reportHealth(): JwksHealth {
    const health: JwksHealth = !this.usable() ? 'unavailable' : performance.now() >= this.expiresAt && this.failure !== undefined ? 'stale' : 'fresh';
    if (health !== this.reported) {
      this.reported = health;
      const { url, staleMs } = this.options;
      if (health === 'stale') {
        const until = new Date(Date.now() + this.expiresAt + staleMs - performance.now()).toISOString();
        this.logger.warn(`JWKS not refreshed from ${url}: ${this.failure}; the last good set is used until ${until} (JWT_JWKS_STALE_SECONDS)`);
      } else if (health === 'unavailable') {
        this.logger.error(`JWKS not fetched from ${url}: ${this.failure ?? 'no fetch tried'}; no key of it is trusted, and readiness fails, until a fetch succeeds`);
      } else {
        this.logger.log(`JWKS fetched from ${url} again`);
      }
    }
    return health;
  }

  private refresh(): Promise<void> {
    this.pending ??= this.fetchKeys().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetchKeys(): Promise<void> {
    this.attemptedAt = performance.now();
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
      this.expiresAt = performance.now() + cacheLifetime(response.headers.get('cache-control'), this.options.minAgeMs, this.options.maxAgeMs);
      this.failure = undefined;
    } catch (error) {
      // fetch() says only "fetch failed"; its cause says why (connection refused, DNS, TLS).
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
      this.failure = `${error instanceof Error ? error.message : String(error)}${cause}`;
    }
    this.reportHealth();
  }
}
