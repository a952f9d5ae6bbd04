import { IsNotEmpty, IsOptional, IsUrl } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { ConfigurationError, dataDirectory, isProduction, readVariables, RuntimeVariables } from './environment';
import { publicTokenKey, readPem, type TokenKey } from './token-keys';

/** A key as configured: tokens that name `kid` in their header are checked with it, tokens without one with the unnamed key. */
export interface ConfiguredKey {
  kid?: string;
  value: string;
}

export interface JwtConfig {
  /** HS256 secrets; none configured at all (no secret, public key or JWKS) means a generated one. */
  secrets: ConfiguredKey[];
  /** The PEM public keys, read and checked here so that a bad key stops the start-up like any bad value. */
  publicKeys: TokenKey[];
  jwksUrl?: string;
  jwksTimeoutMs: number;
  /** An unknown kid refetches the JWKS at most once per this many seconds. */
  jwksRefreshSeconds: number;
  /** Bounds on the JWKS answer's Cache-Control max-age, after which the set is fetched again. */
  jwksMinAgeSeconds: number;
  jwksMaxAgeSeconds: number;
  /** How long past its age the last good set is used while the JWKS cannot be fetched. */
  jwksStaleSeconds: number;
  issuer?: string;
  audience?: string;
  clockToleranceSeconds: number;
  /** How far ahead `exp` may lie; a token valid for longer is refused. */
  maxLifetimeSeconds: number;
}

/** What the token service reads, in the server and in the token command: the keys, and where a generated secret lives. */
export interface TokenConfig {
  dataDir: string;
  jwt: JwtConfig;
}

export class JwtVariables {
  @IsOptional()
  JWT_SECRET?: string;

  @IsOptional()
  JWT_PUBLIC_KEY?: string;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'JWT_JWKS_URL must be an http(s) URL' })
  JWT_JWKS_URL?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 30_000)
  JWT_JWKS_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 86_400)
  JWT_JWKS_REFRESH_SECONDS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 86_400)
  JWT_JWKS_MIN_AGE_SECONDS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 86_400)
  JWT_JWKS_MAX_AGE_SECONDS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(0, 86_400)
  JWT_JWKS_STALE_SECONDS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(0, 300)
  JWT_CLOCK_TOLERANCE_SECONDS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(60, 2_592_000)
  JWT_MAX_LIFETIME_SECONDS?: number;

  @IsOptional()
  @IsNotEmpty()
  JWT_ISSUER?: string;

  @IsOptional()
  @IsNotEmpty()
  JWT_AUDIENCE?: string;
}

const KID = /^[A-Za-z0-9._-]{1,64}$/;
const MIN_SECRET_LENGTH = 32;

/** One key as it is, or `{"<kid>": "<key>", ...}` for several valid at once; the kid "" is the key for tokens without one. */
function parseKeys(variable: string, value: string | undefined): ConfiguredKey[] {
  if (value === undefined) {
    return [];
  }
  if (!value.startsWith('{')) {
    return [{ value }];
  }
  let entries: [string, unknown][];
  try {
    entries = Object.entries(JSON.parse(value) as object);
  } catch {
    throw new ConfigurationError(`Invalid configuration: ${variable} starts with "{" but is not a JSON object of kid to key`);
  }
  if (entries.length === 0 || entries.some(([kid, key]) => !(kid === '' || KID.test(kid)) || typeof key !== 'string' || key === '')) {
    throw new ConfigurationError(`Invalid configuration: ${variable} must map each kid (${KID.source}, or "" for none) to a non-empty key`);
  }
  return entries.map(([kid, key]) => (kid === '' ? { value: key as string } : { kid, value: key as string }));
}

/** Production signs and checks tokens with configured keys only: a generated secret would differ between instances. */
function requireKeysInProduction(vars: JwtVariables, runtime: RuntimeVariables): void {
  if (isProduction(runtime) && !vars.JWT_SECRET && !vars.JWT_PUBLIC_KEY && !vars.JWT_JWKS_URL) {
    throw new ConfigurationError('Invalid configuration: JWT_SECRET is required when NODE_ENV=production, unless JWT_PUBLIC_KEY or JWT_JWKS_URL is set');
  }
}

function jwtConfig(vars: JwtVariables): JwtConfig {
  const secrets = parseKeys('JWT_SECRET', vars.JWT_SECRET);
  const publicKeys = parseKeys('JWT_PUBLIC_KEY', vars.JWT_PUBLIC_KEY).map(({ kid, value }) => {
    try {
      return publicTokenKey(readPem(value), kid);
    } catch (error) {
      const name = kid === undefined ? 'JWT_PUBLIC_KEY' : `JWT_PUBLIC_KEY "${kid}"`;
      throw new ConfigurationError(`Invalid configuration: ${name}: ${(error as Error).message}`);
    }
  });
  if (secrets.some(({ value }) => value.length < MIN_SECRET_LENGTH)) {
    throw new ConfigurationError(`Invalid configuration: JWT_SECRET must be at least ${MIN_SECRET_LENGTH} characters long`);
  }
  const kids = [...secrets, ...publicKeys].map(({ kid }) => kid ?? '');
  if (new Set(kids).size !== kids.length) {
    throw new ConfigurationError('Invalid configuration: JWT_SECRET and JWT_PUBLIC_KEY name each kid once, and hold one key without a kid at most');
  }
  const jwksMinAgeSeconds = vars.JWT_JWKS_MIN_AGE_SECONDS ?? 60;
  const jwksMaxAgeSeconds = vars.JWT_JWKS_MAX_AGE_SECONDS ?? 600;
  if (jwksMinAgeSeconds > jwksMaxAgeSeconds) {
    throw new ConfigurationError('Invalid configuration: JWT_JWKS_MIN_AGE_SECONDS must not exceed JWT_JWKS_MAX_AGE_SECONDS');
  }
  return {
    secrets,
    publicKeys,
    jwksUrl: vars.JWT_JWKS_URL,
    jwksTimeoutMs: vars.JWT_JWKS_TIMEOUT_MS ?? 2_000,
    jwksRefreshSeconds: vars.JWT_JWKS_REFRESH_SECONDS ?? 30,
    jwksMinAgeSeconds,
    jwksMaxAgeSeconds,
    jwksStaleSeconds: vars.JWT_JWKS_STALE_SECONDS ?? 300,
    issuer: vars.JWT_ISSUER,
    audience: vars.JWT_AUDIENCE,
    clockToleranceSeconds: vars.JWT_CLOCK_TOLERANCE_SECONDS ?? 30,
    maxLifetimeSeconds: vars.JWT_MAX_LIFETIME_SECONDS ?? 86_400,
  };
}

export function tokenConfig(vars: JwtVariables, runtime: RuntimeVariables, cwd: string): TokenConfig {
  requireKeysInProduction(vars, runtime);
  return { dataDir: dataDirectory(cwd), jwt: jwtConfig(vars) };
}

/** What the token command reads: JWT_* and NODE_ENV, production still requiring a key. */
export function loadTokenConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): TokenConfig {
  const [vars, runtime] = readVariables(env, [JwtVariables, RuntimeVariables]);
  return tokenConfig(vars, runtime, cwd);
}
