import type { OnApplicationBootstrap } from '@nestjs/common';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { JwtConfig, TokenConfig } from '../config';
import type { TokenDenialReason } from './auth.vocabulary';
import { type JwksHealth, JwksKeySet } from './jwks-key-set';
import { resolveJwtSecret } from './jwt-secret';
import { AuthenticatedOfficer, MAX_CLEARANCE, MIN_CLEARANCE, SUBJECT_MAX_LENGTH } from './officer';
import type { TokenKey } from '../config';

export class TokenRejectedError extends Error {
  /** @param detail why, for the server log only: the client learns no more than the reason */
  constructor(
    readonly reason: Extract<TokenDenialReason, 'TOKEN_INVALID' | 'TOKEN_EXPIRED'>,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

const invalid = (detail: string) => new TokenRejectedError('TOKEN_INVALID', detail);

const TTL_FORMAT = /^([1-9][0-9]*)([smhd])$/;
const TTL_UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** Headers that point at keys: a token never chooses the key it is checked with (RFC 8725 §3.10). */
const KEY_BEARING_HEADERS = ['jku', 'jwk', 'x5u', 'x5c'];

function isValidClearance(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MIN_CLEARANCE && (value as number) <= MAX_CLEARANCE;
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function parseHeader(encoded: string): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    // reported below
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw invalid('not a JWS compact serialisation with a JSON object header');
  }
  return Object.freeze(header as Record<string, unknown>);
}

/** Headers parsed, by their encoded text: every token of one issuer and key carries the same header. */
const parsedHeaders = new Map<string, Record<string, unknown>>();
const PARSED_HEADERS_KEPT = 100;

function protectedHeader(token: string): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3) {
    throw invalid('not a JWS compact serialisation with a JSON object header');
  }
  let header = parsedHeaders.get(parts[0]);
  if (header === undefined) {
    header = parseHeader(parts[0]);
    if (parsedHeaders.size >= PARSED_HEADERS_KEPT) {
      parsedHeaders.clear();
    }
    parsedHeaders.set(parts[0], header);
  }
  return header;
}

type Verifier = (token: string) => Record<string, unknown>;

/**
 * Tokens whose signature and claims were checked, remembered with the span of clock time in which every
 * check of their time claims passes: an officer's client sends the same token on every request, and
 * checking it again costs more than finding it. A remembered token counts only with the very key that
 * checked it, so a key that leaves the configuration or the JWKS takes its tokens with it; a failure is
 * never remembered. Kept by hand rather than by fast-jwt's own cache, which hashes every token first: with
 * it a cached fleet page took 1.15 times the server CPU (docs/performance.md). Emptied when full.
 */
const VERIFIED_TOKENS_REMEMBERED = 1000;

interface VerifiedToken {
  key: TokenKey;
  officer: AuthenticatedOfficer;
  /** Milliseconds since the epoch: before it, nbf, iat or the lifetime cap refuses the token, clock tolerance included. */
  validFrom: number;
  /** Milliseconds since the epoch: after it, the token is expired, clock tolerance included. */
  expiresAt: number;
}

/** A token accepted earlier, checked again: accepted until a time, or refused now and why. */
export type TokenStanding = { accepted: true; until: number } | { accepted: false; reason: TokenRejectedError['reason'] };

/** Checks tokens against the configured keys and the rules of RFC 8725; issues tokens for the token command and tests. */
export class TokenService implements OnApplicationBootstrap {
  private localKeys?: Map<string | undefined, TokenKey>;
  private readonly jwks?: JwksKeySet;
  private readonly verifiers = new WeakMap<TokenKey, Verifier>();
  private readonly verified = new Map<string, VerifiedToken>();

  /** @param generatedSecretIn with no key configured at all: the data directory that holds, or will hold, the generated secret */
  constructor(
    private readonly config: JwtConfig,
    private readonly configuredKeys: TokenKey[],
    private readonly generatedSecretIn?: string,
  ) {
    if (config.jwksUrl) {
      this.jwks = new JwksKeySet({
        url: config.jwksUrl,
        timeoutMs: config.jwksTimeoutMs,
        refreshMs: config.jwksRefreshSeconds * 1000,
        minAgeMs: config.jwksMinAgeSeconds * 1000,
        maxAgeMs: config.jwksMaxAgeSeconds * 1000,
        staleMs: config.jwksStaleSeconds * 1000,
      });
    }
  }

  /** The keys of the configuration; with none configured at all, the secret generated under the data directory. */
  static fromConfig(config: TokenConfig): TokenService {
    const { secrets, publicKeys, jwksUrl } = config.jwt;
    const unconfigured = secrets.length === 0 && publicKeys.length === 0 && !jwksUrl;
    const keys = [...secrets.map(({ kid, value }): TokenKey => ({ kid, alg: 'HS256', key: value })), ...publicKeys];
    return new TokenService(config.jwt, keys, unconfigured ? config.dataDir : undefined);
  }

  /**
   * The server reads or creates the generated secret here, once every module has started (the database
   * reached), so a start that fails writes none; and it fetches the JWKS before it listens. The token
   * command, which signs only, does neither: its first token reads or creates the secret.
   */
  async onApplicationBootstrap(): Promise<void> {
    this.keys();
    await this.jwks?.prefetch();
  }

  /** The configured keys by kid, or the generated secret, read or created when first needed. */
  private keys(): Map<string | undefined, TokenKey> {
    if (!this.localKeys) {
      const generated: TokenKey[] = this.generatedSecretIn === undefined ? [] : [{ alg: 'HS256', key: resolveJwtSecret(this.generatedSecretIn) }];
      this.localKeys = new Map([...generated, ...this.configuredKeys].map((key) => [key.kid, key]));
    }
    return this.localKeys;
  }

  /** The JWKS cache's health for readiness; undefined without JWT_JWKS_URL. */
  jwksHealth(): JwksHealth | undefined {
    return this.jwks?.health();
  }

  async verify(token: string): Promise<AuthenticatedOfficer> {
    return this.checked(token, await this.keyOf(token)).officer;
  }

  /**
   * Whether a token accepted earlier is still accepted, for work that outlives its request (an audit
   * stream): until when (ms since the epoch: exp plus the clock tolerance, when verify starts refusing
   * it), or why not now: expired, or its key gone from the configuration or the JWKS.
   */
  async standing(token: string): Promise<TokenStanding> {
    try {
      return { accepted: true, until: this.checked(token, await this.keyOf(token)).expiresAt };
    } catch (error) {
      if (error instanceof TokenRejectedError) {
        return { accepted: false, reason: error.reason };
      }
      throw error;
    }
  }

  /** The key that checks the token: the one its kid names, never one its header carries or points at. */
  private async keyOf(token: string): Promise<TokenKey> {
    const header = protectedHeader(token);
    const keyBearing = KEY_BEARING_HEADERS.find((name) => name in header);
    if (keyBearing) {
      throw invalid(`the ${keyBearing} header is refused: keys are never taken from a token`);
    }
    if (header.kid !== undefined && typeof header.kid !== 'string') {
      throw invalid('kid is not a string');
    }
    const key = await this.findKey(header.kid);
    if (!key) {
      throw invalid(header.kid === undefined ? 'no kid, and no key without a kid is configured' : 'kid names no configured key');
    }
    return key;
  }

  /** The token checked with `key`, or remembered as checked with it and still within its valid span. */
  private checked(token: string, key: TokenKey): VerifiedToken {
    const remembered = this.verified.get(token);
    const now = Date.now();
    if (remembered?.key === key && remembered.validFrom <= now && now <= remembered.expiresAt) {
      return remembered;
    }
    const claims = this.claimsOf(token, key);
    const officer = this.officerFrom(claims);
    if (this.verified.size >= VERIFIED_TOKENS_REMEMBERED) {
      this.verified.clear();
    }
    const verified = { key, officer, ...this.validSpan(claims as { exp: number; nbf?: number; iat?: number }) };
    this.verified.set(token, verified);
    return verified;
  }

  /** When the checks of claimsOf and officerFrom on exp, nbf and iat pass, as they pass for an accepted token. */
  private validSpan({ exp, nbf, iat }: { exp: number; nbf?: number; iat?: number }): Pick<VerifiedToken, 'validFrom' | 'expiresAt'> {
    const tolerance = this.config.clockToleranceSeconds;
    const seconds = Math.max(nbf ?? -Infinity, iat ?? -Infinity, exp - this.config.maxLifetimeSeconds) - tolerance;
    return { validFrom: seconds * 1000, expiresAt: (exp + tolerance) * 1000 };
  }

  /**
   * @param ttl a lifetime such as `90s`, `15m`, `1h` or `7d`, no longer than JWT_MAX_LIFETIME_SECONDS
   * @param signingKey the configured key without a kid unless told otherwise
   */
  issue(officerId: string, clearance: number, ttl: string, signingKey = this.keys().get(undefined)): string {
    if (officerId.trim() === '') {
      throw new RangeError('the officer id must not be blank');
    }
    if (!isValidClearance(clearance)) {
      throw new RangeError(`clearance must be an integer from ${MIN_CLEARANCE} to ${MAX_CLEARANCE}`);
    }
    const [, amount, unit] = TTL_FORMAT.exec(ttl) ?? [];
    if (!amount) {
      throw new RangeError('ttl must be a number followed by s, m, h or d, e.g. 1h');
    }
    const seconds = Number(amount) * TTL_UNIT_SECONDS[unit as keyof typeof TTL_UNIT_SECONDS];
    if (seconds > this.config.maxLifetimeSeconds) {
      throw new RangeError(`ttl must not exceed JWT_MAX_LIFETIME_SECONDS (${this.config.maxLifetimeSeconds} s)`);
    }
    if (!signingKey) {
      throw new RangeError('no signing key: set JWT_SECRET, name one of its kids, or give a private key');
    }
    const sign = createSigner({
      key: signingKey.key,
      algorithm: signingKey.alg,
      kid: signingKey.kid,
      expiresIn: seconds * 1000,
      iss: this.config.issuer,
      aud: this.config.audience,
      sub: officerId,
    });
    return sign({ clearance });
  }

  /** A named HS256 secret of the configuration, for the token command's `--kid`. */
  secret(kid: string): TokenKey | undefined {
    const key = this.keys().get(kid);
    return key?.alg === 'HS256' ? key : undefined;
  }

  private async findKey(kid: string | undefined): Promise<TokenKey | undefined> {
    return this.keys().get(kid) ?? (kid !== undefined ? await this.jwks?.find(kid) : undefined);
  }

  private claimsOf(token: string, key: TokenKey): Record<string, unknown> {
    let verify = this.verifiers.get(key);
    if (!verify) {
      verify = createVerifier({
        key: key.key,
        algorithms: [key.alg],
        requiredClaims: ['exp', ...(this.config.issuer ? ['iss'] : []), ...(this.config.audience ? ['aud'] : [])],
        allowedIss: this.config.issuer,
        allowedAud: this.config.audience,
        clockTolerance: this.config.clockToleranceSeconds * 1000,
      }) as Verifier;
      this.verifiers.set(key, verify);
    }
    try {
      return verify(token);
    } catch (error) {
      if (error instanceof TokenError && error.code === TokenError.codes.expired) {
        throw new TokenRejectedError('TOKEN_EXPIRED', error.message);
      }
      throw invalid(error instanceof Error ? error.message : String(error));
    }
  }

  /** What the library leaves unchecked: the types of the time claims, a lifetime cap, iat in the future, and our claims. */
  private officerFrom(claims: Record<string, unknown>): AuthenticatedOfficer {
    const { sub, clearance, exp, iat, nbf } = claims;
    const now = Date.now() / 1000;
    const tolerance = this.config.clockToleranceSeconds;
    if (!isNumericDate(exp) || (iat !== undefined && !isNumericDate(iat)) || (nbf !== undefined && !isNumericDate(nbf))) {
      throw invalid('exp, iat and nbf must be numbers');
    }
    if (exp - now > this.config.maxLifetimeSeconds + tolerance) {
      throw invalid('exp lies further ahead than JWT_MAX_LIFETIME_SECONDS');
    }
    if (iat !== undefined && iat > now + tolerance) {
      throw invalid('iat lies in the future');
    }
    if (typeof sub !== 'string' || sub.trim() === '' || sub.length > SUBJECT_MAX_LENGTH || !isValidClearance(clearance)) {
      throw invalid(`sub must be a non-blank string of at most ${SUBJECT_MAX_LENGTH} characters and clearance an integer from 0 to 10`);
    }
    return { id: sub, clearance };
  }
}
