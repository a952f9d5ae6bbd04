import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsIP, IsNotEmpty, IsOptional, IsUrl, Matches, ValidateBy, validateSync } from 'class-validator';
import { publicTokenKey, readPem, type TokenKey } from './token-keys';
import { describeValidationErrors, IsIntInRange, ToInteger } from '../common';

export interface SqliteLocation {
  dialect: 'sqlite';
  /** A file path, or `:memory:`. */
  path: string;
}

export interface PostgresLocation {
  dialect: 'postgres';
  url: string;
  poolSize: number;
  timeouts: PostgresTimeouts;
}

/** Bounds on every wait for PostgreSQL, so a silent or overloaded server turns into errors, not hangs. */
export interface PostgresTimeouts {
  /** Server side: the longest one statement may run, and the longest a transaction may sit idle. */
  statementMs: number;
  /** Client side: the longest to wait for an answer, which a server gone silent never sends. */
  queryMs: number;
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** An unused pooled connection is closed after this. */
  idleMs: number;
  /** Idle time before the first TCP keepalive probe on a connection. */
  keepAliveDelayMs: number;
}

export type DatabaseLocation = SqliteLocation | PostgresLocation;

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

/** The levels LOG_LEVEL takes, from the fewest lines to the most; each includes those before it. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

export interface AppConfig {
  port: number;
  /** The address the server listens on; 0.0.0.0 is every IPv4 interface. */
  host: string;
  /** How long a SIGTERM or SIGINT may take to answer the requests in flight and close the database. */
  shutdownGraceMs: number;
  production: boolean;
  /** Where the embedded database and the generated token secret live by default. */
  dataDir: string;
  database: DatabaseLocation;
  /** Off when deployments migrate with `npm run db:migrate` before starting instances. */
  migrateOnStart: boolean;
  /** PostgreSQL: readiness fails while this instance's clock differs from the database's by more than this. */
  clockSkewMaxMs: number;
  jwt: JwtConfig;
  seedDemo: boolean;
  /**
   * Proxies (load balancers) in front of the service whose X-Forwarded-For is believed: how many hops,
   * or the addresses and CIDR ranges they connect from; 0: none.
   */
  trustProxy: number | string[];
  rateLimit: RateLimitConfig;
  audit: AuditConfig;
  swaggerEnabled: boolean;
  /** Origins a browser may call the API from; empty: no CORS headers at all. */
  corsOrigins: string[];
  logLevel: LogLevelName;
  /** The bearer token GET /metrics requires; unset: open, except in production, where it is then closed. */
  metricsToken?: string;
  decommissionApproval: DecommissionApprovalConfig;
  /** Set when OpenTelemetry traces are exported (docs/operations.md#traces); absent, the SDK is not even loaded. */
  tracing?: TracingConfig;
}

export const DECOMMISSION_APPROVAL_POLICIES = ['none', 'required'] as const;
/** The longest a decommission request may wait for its approval: 30 days. */
const APPROVAL_TTL_MAX_SECONDS = 2_592_000;
const DURATION_UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/** A duration written with its unit (`30s`, `90m`, `24h`, `7d`) in seconds; undefined when the text is not one. */
function durationSeconds(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNIT_SECONDS[match[2] as keyof typeof DURATION_UNIT_SECONDS] : undefined;
}

/** Whether a decommission needs a second officer's approval (docs/api.md#two-officers-for-a-decommission). */
export interface DecommissionApprovalConfig {
  /** none: DELETE decommissions at once; required: DELETE opens a request that the officer in authorized_by approves. */
  policy: (typeof DECOMMISSION_APPROVAL_POLICIES)[number];
  /** How long a request waits for its approval before it expires. */
  ttlSeconds: number;
}

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests of any kind one client may send a minute. */
  requestsPerMinute: number;
  /** Refused requests (failed authentication, denied decommissions, ...) one client may make a minute. */
  denialsPerMinute: number;
  /** IPv6 clients are counted by network of this prefix length: one customer holds a whole /64. */
  ipv6Prefix: number;
  /** Counters live here when set, shared by every instance; otherwise in each instance's memory. */
  redisUrl?: string;
}

/** How decisions' events get their place in the chain: see docs/audit-write-path.md. */
export interface AuditConfig {
  /** The most waiting events one sequencing batch moves into the chain. */
  batchLimit: number;
  /** PostgreSQL: how long the sequencer pauses after a batch that was not full before it looks again. */
  sequencerIntervalMs: number;
  /** PostgreSQL: how often an instance that does not sequence tries to take over the sequencer's lock. */
  takeoverIntervalMs: number;
  /** PostgreSQL: the longest a decision waits for its event's place in the chain; past it, 503. */
  sequencingTimeoutMs: number;
  /** Readiness fails while one of this instance's events has waited longer than this for its place. */
  readinessLagMs: number;
  /** The Ed25519 key that signs checkpoints; absent outside production: one is generated (see audit-signing-key.ts). */
  signingKey?: KeyObject;
  /** The checkpoints' origin line, also the signing key's name. */
  logOrigin: string;
  /** A checkpoint is signed at most this often, when the tree has grown. */
  checkpointIntervalMs: number;
}

/**
 * What the service sets of OpenTelemetry's SDK; the SDK reads every other OTEL_* variable itself
 * (exporter, protocol, endpoint, headers, sampler, resource attributes).
 */
export interface TracingConfig {
  serviceName: string;
}

const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
/** The trace exporters the SDK knows, as OTEL_TRACES_EXPORTER lists them. */
const TRACES_EXPORTERS = /^(otlp|console|none)(,(otlp|console|none))*$/;

export class ConfigurationError extends Error {}

const HOPS = /^(10|[0-9])$/;

function isAddressOrRange(entry: string): boolean {
  const [address, bits, ...rest] = entry.trim().split('/');
  const version = isIP(address);
  const maxBits = version === 4 ? 32 : 128;
  return version !== 0 && rest.length === 0 && (bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= maxBits));
}

function trustedProxies(value = '0'): number | string[] {
  return HOPS.test(value) ? Number(value) : value.split(',').map((entry) => entry.trim());
}

class EnvironmentVariables {
  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 65535)
  PORT?: number;

  @IsOptional()
  @IsIP(undefined, { message: 'HOST must be an IP address such as 0.0.0.0, 127.0.0.1 or ::' })
  HOST?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  SHUTDOWN_GRACE_MS?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  SWAGGER_ENABLED?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^,\s/]+(,\s*https?:\/\/[^,\s/]+)*$/, {
    message: 'CORS_ORIGINS must be a comma-separated list of origins such as https://ops.example.org,http://localhost:8080',
  })
  CORS_ORIGINS?: string;

  @IsOptional()
  @IsIn(['development', 'production', 'test'])
  NODE_ENV?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: LogLevelName;

  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'METRICS_TOKEN must be 16 to 256 printable characters without spaces' })
  METRICS_TOKEN?: string;

  @IsOptional()
  @Matches(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, {
    message: 'DATABASE_URL must look like sqlite:<path> or postgres://user@host:5432/database',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 100)
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  DATABASE_STATEMENT_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  DATABASE_QUERY_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 60_000)
  DATABASE_CONNECT_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1_000, 3_600_000)
  DATABASE_IDLE_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1_000, 3_600_000)
  DATABASE_KEEPALIVE_DELAY_MS?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  MIGRATE_ON_START?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 3_600_000)
  CLOCK_SKEW_MAX_MS?: number;

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

  @IsOptional()
  @IsIn(['true', 'false'])
  SEED_DEMO?: string;

  @IsOptional()
  @ValidateBy({
    name: 'isTrustedProxies',
    validator: {
      validate: (value) => typeof value === 'string' && (HOPS.test(value) || value.split(',').every(isAddressOrRange)),
      defaultMessage: () => 'TRUST_PROXY must be a number of proxies from 0 to 10, or a comma-separated list of IP addresses and CIDR ranges such as 10.0.0.0/8,fd00::/8',
    },
  })
  TRUST_PROXY?: string;

  @IsOptional()
  @IsIn(['true', 'false'])
  RATE_LIMIT_ENABLED?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000_000)
  RATE_LIMIT_REQUESTS_PER_MINUTE?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(16, 128)
  RATE_LIMIT_IPV6_PREFIX?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000_000)
  RATE_LIMIT_DENIALS_PER_MINUTE?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 2_000)
  AUDIT_BATCH_LIMIT?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000)
  AUDIT_SEQUENCER_INTERVAL_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(50, 60_000)
  AUDIT_TAKEOVER_INTERVAL_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  AUDIT_SEQUENCING_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  AUDIT_READINESS_LAG_MS?: number;

  @IsOptional()
  AUDIT_SIGNING_KEY_FILE?: string;

  @IsOptional()
  @Matches(/^[\x21-\x2a\x2c-\x7e]{1,255}$/, { message: 'AUDIT_LOG_ORIGIN must be printable ASCII without spaces or "+", such as registry.example.org/audit' })
  AUDIT_LOG_ORIGIN?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 3_600_000)
  AUDIT_CHECKPOINT_INTERVAL_MS?: number;

  @IsOptional()
  @IsIn(DECOMMISSION_APPROVAL_POLICIES)
  DECOMMISSION_APPROVAL?: (typeof DECOMMISSION_APPROVAL_POLICIES)[number];

  @IsOptional()
  @ValidateBy({
    name: 'isApprovalTtl',
    validator: {
      validate: (value) => typeof value === 'string' && (durationSeconds(value) ?? Infinity) <= APPROVAL_TTL_MAX_SECONDS,
      defaultMessage: () => 'DECOMMISSION_APPROVAL_TTL must be a duration with its unit (s, m, h or d), such as 24h, 90m or 7d, up to 30d',
    },
  })
  DECOMMISSION_APPROVAL_TTL?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must look like redis://host:6379' })
  REDIS_URL?: string;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL such as http://collector:4318' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL such as http://collector:4318/v1/traces' })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @IsOptional()
  @IsIn(OTLP_PROTOCOLS)
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;

  @IsOptional()
  @IsIn(OTLP_PROTOCOLS)
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string;

  @IsOptional()
  @Matches(TRACES_EXPORTERS, { message: 'OTEL_TRACES_EXPORTER must be otlp, console or none, or a comma-separated list of them' })
  OTEL_TRACES_EXPORTER?: string;

  @IsOptional()
  @IsIn(['true', 'false'])
  OTEL_SDK_DISABLED?: string;

  @IsOptional()
  @IsNotEmpty()
  OTEL_SERVICE_NAME?: string;
}

function postgresTimeouts(vars: EnvironmentVariables): PostgresTimeouts {
  const statementMs = vars.DATABASE_STATEMENT_TIMEOUT_MS ?? 5_000;
  // The server cancels a slow statement and says so; the client-side limit is for a server that says nothing.
  const queryMs = vars.DATABASE_QUERY_TIMEOUT_MS ?? statementMs + 1_000;
  if (queryMs <= statementMs) {
    throw new ConfigurationError(
      'Invalid configuration: DATABASE_QUERY_TIMEOUT_MS must be greater than DATABASE_STATEMENT_TIMEOUT_MS',
    );
  }
  return {
    statementMs,
    queryMs,
    connectMs: vars.DATABASE_CONNECT_TIMEOUT_MS ?? 3_000,
    idleMs: vars.DATABASE_IDLE_TIMEOUT_MS ?? 10_000,
    keepAliveDelayMs: vars.DATABASE_KEEPALIVE_DELAY_MS ?? 10_000,
  };
}

/** Names this service's log; a deployment sets its own, unique to it, so that witnesses never mix two logs. */
const DEFAULT_LOG_ORIGIN = 'fleet-registry.invalid/audit';

function readSigningKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not a private key in PEM';
    throw new ConfigurationError(`Invalid configuration: AUDIT_SIGNING_KEY_FILE ${file}: ${reason}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new ConfigurationError(`Invalid configuration: AUDIT_SIGNING_KEY_FILE ${file}: an Ed25519 key is needed, this is ${key.asymmetricKeyType}`);
  }
  return key;
}

function auditConfig(vars: EnvironmentVariables, cwd: string): AuditConfig {
  const takeoverIntervalMs = vars.AUDIT_TAKEOVER_INTERVAL_MS ?? 500;
  const sequencingTimeoutMs = vars.AUDIT_SEQUENCING_TIMEOUT_MS ?? 10_000;
  // A sequencer that dies is replaced within one takeover interval; a wait shorter than that fails every decision meanwhile.
  if (sequencingTimeoutMs <= takeoverIntervalMs) {
    throw new ConfigurationError('Invalid configuration: AUDIT_SEQUENCING_TIMEOUT_MS must be greater than AUDIT_TAKEOVER_INTERVAL_MS');
  }
  if (vars.NODE_ENV === 'production' && !vars.AUDIT_SIGNING_KEY_FILE) {
    throw new ConfigurationError(
      'Invalid configuration: AUDIT_SIGNING_KEY_FILE is required when NODE_ENV=production: the path of an Ed25519 private key in PKCS#8 PEM (openssl genpkey -algorithm ed25519 -out audit-signing-key.pem)',
    );
  }
  return {
    signingKey: vars.AUDIT_SIGNING_KEY_FILE === undefined ? undefined : readSigningKey(resolve(cwd, vars.AUDIT_SIGNING_KEY_FILE)),
    logOrigin: vars.AUDIT_LOG_ORIGIN ?? DEFAULT_LOG_ORIGIN,
    checkpointIntervalMs: vars.AUDIT_CHECKPOINT_INTERVAL_MS ?? 1_000,
    batchLimit: vars.AUDIT_BATCH_LIMIT ?? 500,
    sequencerIntervalMs: vars.AUDIT_SEQUENCER_INTERVAL_MS ?? 5,
    takeoverIntervalMs,
    sequencingTimeoutMs,
    readinessLagMs: vars.AUDIT_READINESS_LAG_MS ?? 2_000,
  };
}

function databaseLocation(vars: EnvironmentVariables, dataDir: string, cwd: string): DatabaseLocation {
  const url = vars.DATABASE_URL;
  if (url?.startsWith('postgres')) {
    return { dialect: 'postgres', url, poolSize: vars.DATABASE_POOL_SIZE ?? 20, timeouts: postgresTimeouts(vars) };
  }
  const path = url?.slice('sqlite:'.length);
  return {
    dialect: 'sqlite',
    path: path === undefined ? resolve(dataDir, 'registry.sqlite') : path === ':memory:' ? path : resolve(cwd, path),
  };
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

function jwtConfig(vars: EnvironmentVariables): JwtConfig {
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

/**
 * The variables whose names match `read` (all by default), checked; an empty variable counts as unset.
 * A command reads only those it uses, so a mistake in another one is not its concern.
 */
function readVariables(env: NodeJS.ProcessEnv, read = /./): EnvironmentVariables {
  const present = Object.fromEntries(Object.entries(env).filter(([name, value]) => value !== undefined && value !== '' && read.test(name)));
  const vars = plainToInstance(EnvironmentVariables, present);
  // One message a variable: its first failed check says what the variable takes.
  const errors = validateSync(vars, { stopAtFirstError: true });
  if (errors.length > 0) {
    throw new ConfigurationError(`Invalid configuration: ${describeValidationErrors(errors)}`);
  }
  return vars;
}

/** Production signs and checks tokens with configured keys only: a generated secret would differ between instances. */
function requireKeysInProduction(vars: EnvironmentVariables): void {
  if (vars.NODE_ENV === 'production' && !vars.JWT_SECRET && !vars.JWT_PUBLIC_KEY && !vars.JWT_JWKS_URL) {
    throw new ConfigurationError('Invalid configuration: JWT_SECRET is required when NODE_ENV=production, unless JWT_PUBLIC_KEY or JWT_JWKS_URL is set');
  }
}

/**
 * Traces are on when an OTLP endpoint or a trace exporter is named, as the SDK reads them, and
 * OTEL_SDK_DISABLED does not switch them off; with nothing set the service exports nothing.
 */
function tracingConfig(vars: EnvironmentVariables): TracingConfig | undefined {
  const exporters = vars.OTEL_TRACES_EXPORTER?.split(',');
  const named = exporters ? !exporters.includes('none') : (vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) !== undefined;
  return named && vars.OTEL_SDK_DISABLED !== 'true' ? { serviceName: vars.OTEL_SERVICE_NAME ?? 'fleet-registry' } : undefined;
}

/** What the server reads before anything else, to start the SDK before the modules it instruments load: OTEL_* alone. */
export function loadTracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig | undefined {
  return tracingConfig(readVariables(env, /^OTEL_\w+$/));
}

/** What the database commands (db:*, audit:*) read: the database, and nothing of tokens or HTTP. */
export type DatabaseConfig = Pick<AppConfig, 'dataDir' | 'database' | 'migrateOnStart'>;

export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): DatabaseConfig {
  const vars = readVariables(env, /^(DATABASE_\w+|MIGRATE_ON_START)$/);
  const dataDir = resolve(cwd, 'data');
  return { dataDir, database: databaseLocation(vars, dataDir, cwd), migrateOnStart: vars.MIGRATE_ON_START !== 'false' };
}

/** What audit:verify --checkpoint reads to check a checkpoint's signature by default: the service's key and its name. */
export type CheckpointKeyConfig = Pick<AuditConfig, 'signingKey' | 'logOrigin'>;

export function loadCheckpointKeyConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CheckpointKeyConfig {
  const vars = readVariables(env, /^(AUDIT_SIGNING_KEY_FILE|AUDIT_LOG_ORIGIN)$/);
  const { signingKey, logOrigin } = auditConfig(vars, cwd);
  return { signingKey, logOrigin };
}

/** What the token command reads: the keys, and where a generated secret lives. */
export type TokenConfig = Pick<AppConfig, 'dataDir' | 'jwt'>;

export function loadTokenConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): TokenConfig {
  const vars = readVariables(env, /^(NODE_ENV|JWT_\w+)$/);
  requireKeysInProduction(vars);
  return { dataDir: resolve(cwd, 'data'), jwt: jwtConfig(vars) };
}

/** Everything the server reads, checked once at start-up. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const vars = readVariables(env);
  requireKeysInProduction(vars);
  const production = vars.NODE_ENV === 'production';
  const dataDir = resolve(cwd, 'data');
  return {
    port: vars.PORT ?? 3000,
    host: vars.HOST ?? '0.0.0.0',
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS ?? 10_000,
    production,
    dataDir,
    database: databaseLocation(vars, dataDir, cwd),
    migrateOnStart: vars.MIGRATE_ON_START !== 'false',
    clockSkewMaxMs: vars.CLOCK_SKEW_MAX_MS ?? 5_000,
    jwt: jwtConfig(vars),
    // Demo records in a production database would pass for real ones: there it takes an explicit yes.
    seedDemo: production ? vars.SEED_DEMO === 'true' : vars.SEED_DEMO !== 'false',
    trustProxy: trustedProxies(vars.TRUST_PROXY),
    rateLimit: {
      enabled: vars.RATE_LIMIT_ENABLED !== 'false',
      requestsPerMinute: vars.RATE_LIMIT_REQUESTS_PER_MINUTE ?? 1_200,
      denialsPerMinute: vars.RATE_LIMIT_DENIALS_PER_MINUTE ?? 30,
      ipv6Prefix: vars.RATE_LIMIT_IPV6_PREFIX ?? 64,
      redisUrl: vars.REDIS_URL,
    },
    audit: auditConfig(vars, cwd),
    swaggerEnabled: vars.SWAGGER_ENABLED !== 'false',
    corsOrigins: vars.CORS_ORIGINS?.split(',').map((origin) => origin.trim()) ?? [],
    logLevel: vars.LOG_LEVEL ?? 'info',
    metricsToken: vars.METRICS_TOKEN,
    decommissionApproval: {
      policy: vars.DECOMMISSION_APPROVAL ?? 'none',
      ttlSeconds: durationSeconds(vars.DECOMMISSION_APPROVAL_TTL ?? '24h') as number,
    },
    tracing: tracingConfig(vars),
  };
}
