import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { ConfigurationError, isProduction, type RuntimeVariables } from './environment';

/** Where and how decisions are pushed: signed webhooks and the syslog feed (docs/api.md#webhooks, docs/operations.md#syslog). */
export interface DeliveryConfig {
  /** An attempt that has no 2xx answer within this fails. */
  timeoutMs: number;
  /** The first retry's delay; each next one doubles, to RETRY_CAP_MS, with jitter. */
  retryBaseMs: number;
  /** Failed attempts at one event after which a subscription turns failing. */
  maxAttempts: number;
  /** How long an instance holds a feed without renewing its lease: another takes it over within this once it dies. */
  leaseMs: number;
  /** Plain http:// urls are accepted (tests, a receiver on a trusted network). */
  allowHttp: boolean;
  /** Urls whose host is, or resolves to, a loopback, private, link-local, unique-local or metadata address are accepted. */
  allowPrivateNetworks: boolean;
  /** The most subscriptions the database holds: each costs a loop, a connection and a lease. */
  subscriptionsMax: number;
  /**
   * The key that encrypts subscriptions' secrets in the database: WEBHOOK_SECRET_KEY_FILE's bytes.
   * Absent outside production: one is generated beside the database (see the delivery module); absent
   * in production: webhooks are off on this instance (creating one answers 503).
   */
  secretKey?: Buffer;
  /** No WEBHOOK_SECRET_KEY_FILE outside production: a key is generated beside the database, as the checkpoints' signing key is. */
  generatesSecretKey: boolean;
  /** The syslog feed, when AUDIT_SYSLOG_URL is set. */
  syslog?: SyslogTarget;
}

export interface SyslogTarget {
  protocol: 'tcp' | 'tls';
  host: string;
  port: number;
  /** tls: the CA certificates (PEM) the receiver's certificate is checked against, instead of the system's. */
  ca?: string;
}

/** The longest a retry waits, whatever the attempt. */
export const RETRY_CAP_MS = 300_000;
/** Fewer bytes than this in WEBHOOK_SECRET_KEY_FILE do not make a key worth the name. */
const SECRET_KEY_MIN_BYTES = 32;

export class DeliveryVariables {
  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 120_000)
  WEBHOOK_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 600_000)
  WEBHOOK_RETRY_BASE_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000)
  WEBHOOK_MAX_ATTEMPTS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(300, 3_600_000)
  WEBHOOK_LEASE_MS?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_HTTP?: string;

  @IsOptional()
  @IsIn(['true', 'false'])
  WEBHOOK_ALLOW_PRIVATE_NETWORKS?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 1_000)
  WEBHOOK_SUBSCRIPTIONS_MAX?: number;

  @IsOptional()
  WEBHOOK_SECRET_KEY_FILE?: string;

  @IsOptional()
  @Matches(/^(tcp|tls):\/\/[^/:\s]+:\d{1,5}$/, { message: 'AUDIT_SYSLOG_URL must be tcp://host:port or tls://host:port' })
  AUDIT_SYSLOG_URL?: string;

  @IsOptional()
  AUDIT_SYSLOG_CA_FILE?: string;
}

function readConfiguredFile(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigurationError(`Invalid configuration: ${variable} ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'cannot be read'}`);
  }
}

function syslogTarget(vars: DeliveryVariables, cwd: string): SyslogTarget | undefined {
  if (vars.AUDIT_SYSLOG_URL === undefined) {
    if (vars.AUDIT_SYSLOG_CA_FILE !== undefined) {
      throw new ConfigurationError('Invalid configuration: AUDIT_SYSLOG_CA_FILE is set but AUDIT_SYSLOG_URL is not');
    }
    return undefined;
  }
  const url = new URL(vars.AUDIT_SYSLOG_URL);
  const port = Number(url.port);
  if (port < 1 || port > 65_535) {
    throw new ConfigurationError('Invalid configuration: AUDIT_SYSLOG_URL must name a port from 1 to 65535');
  }
  const protocol = url.protocol === 'tls:' ? 'tls' : 'tcp';
  if (protocol === 'tcp' && vars.AUDIT_SYSLOG_CA_FILE !== undefined) {
    throw new ConfigurationError('Invalid configuration: AUDIT_SYSLOG_CA_FILE is only read with a tls:// AUDIT_SYSLOG_URL');
  }
  const ca = vars.AUDIT_SYSLOG_CA_FILE === undefined ? undefined : readConfiguredFile('AUDIT_SYSLOG_CA_FILE', resolve(cwd, vars.AUDIT_SYSLOG_CA_FILE)).toString('utf8');
  return { protocol, host: url.hostname.replace(/^\[|\]$/g, ''), port, ca };
}

function secretKey(vars: DeliveryVariables, cwd: string): Buffer | undefined {
  if (vars.WEBHOOK_SECRET_KEY_FILE === undefined) {
    return undefined;
  }
  const key = readConfiguredFile('WEBHOOK_SECRET_KEY_FILE', resolve(cwd, vars.WEBHOOK_SECRET_KEY_FILE));
  if (key.length < SECRET_KEY_MIN_BYTES) {
    throw new ConfigurationError(
      `Invalid configuration: WEBHOOK_SECRET_KEY_FILE must hold at least ${SECRET_KEY_MIN_BYTES} random bytes (openssl rand -out webhook-secret.key 32)`,
    );
  }
  return key;
}

export function deliveryConfig(vars: DeliveryVariables, runtime: RuntimeVariables, cwd: string): DeliveryConfig {
  return {
    timeoutMs: vars.WEBHOOK_TIMEOUT_MS ?? 10_000,
    retryBaseMs: vars.WEBHOOK_RETRY_BASE_MS ?? 1_000,
    maxAttempts: vars.WEBHOOK_MAX_ATTEMPTS ?? 15,
    leaseMs: vars.WEBHOOK_LEASE_MS ?? 15_000,
    allowHttp: vars.WEBHOOK_ALLOW_HTTP === 'true',
    allowPrivateNetworks: vars.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
    subscriptionsMax: vars.WEBHOOK_SUBSCRIPTIONS_MAX ?? 100,
    secretKey: secretKey(vars, cwd),
    generatesSecretKey: vars.WEBHOOK_SECRET_KEY_FILE === undefined && !isProduction(runtime),
    syslog: syslogTarget(vars, cwd),
  };
}
