import type { KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { ConfigurationError, isProduction, readVariables, RuntimeVariables } from './environment';
import { readEd25519PrivateKey } from './key-files';

/** How decisions' events get their place in the chain: see docs/audit-write-path.md. */
export interface AuditConfig {
  /** The most waiting events one sequencing batch moves into the chain. */
  batchLimit: number;
  /** PostgreSQL: how long the sequencer sleeps when no event waits, unless committed events wake it first. */
  sequencerIntervalMs: number;
  /** PostgreSQL: how often an instance that does not sequence tries to take over the sequencer's lock. */
  takeoverIntervalMs: number;
  /** PostgreSQL: the longest a decision waits for its event's place in the chain; past it, 503. */
  sequencingTimeoutMs: number;
  /** Readiness fails while one of this instance's events has waited longer than this for its place. */
  readinessLagMs: number;
  /** The Ed25519 key that signs checkpoints; absent outside production: one is generated (see audit-signing-key.ts). */
  signingKey?: KeyObject;
  /** Outside production, a key file others than its owner may read: the line that says so and how to fix it. */
  signingKeyWarning?: string;
  /** The checkpoints' origin line, also the signing key's name. */
  logOrigin: string;
  /** A checkpoint is signed at most this often, when the tree has grown. */
  checkpointIntervalMs: number;
  /** The most walks of the chain (GET /v1/audit/verify) an instance runs at once; past it, 503. */
  verificationsMax: number;
  /** Whether the tiles and the checkpoint are served to anyone, without a token (AUDIT_TILES_PUBLIC=true). */
  tilesPublic: boolean;
}

/** What audit:verify --checkpoint reads to check a checkpoint's signature by default: the service's key and its name. */
export type CheckpointKeyConfig = Pick<AuditConfig, 'signingKey' | 'signingKeyWarning' | 'logOrigin'>;

export class CheckpointKeyVariables {
  @IsOptional()
  AUDIT_SIGNING_KEY_FILE?: string;

  @IsOptional()
  @Matches(/^[\x21-\x2a\x2c-\x7e]{1,255}$/, { message: 'AUDIT_LOG_ORIGIN must be printable ASCII without spaces or "+", such as registry.example.org/audit' })
  AUDIT_LOG_ORIGIN?: string;
}

export class AuditVariables extends CheckpointKeyVariables {
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
  @ToInteger()
  @IsIntInRange(100, 3_600_000)
  AUDIT_CHECKPOINT_INTERVAL_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 32)
  AUDIT_VERIFICATIONS_MAX?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  AUDIT_TILES_PUBLIC?: string;
}

/** Names this service's log; a deployment sets its own, unique to it, so that witnesses never mix two logs. */
const DEFAULT_LOG_ORIGIN = 'fleet-registry.invalid/audit';

function checkpointKeyConfig(vars: CheckpointKeyVariables, runtime: RuntimeVariables, cwd: string): CheckpointKeyConfig {
  const file = vars.AUDIT_SIGNING_KEY_FILE;
  const signing = file === undefined ? undefined : readEd25519PrivateKey('AUDIT_SIGNING_KEY_FILE', resolve(cwd, file), isProduction(runtime));
  return { signingKey: signing?.key, signingKeyWarning: signing?.warning, logOrigin: vars.AUDIT_LOG_ORIGIN ?? DEFAULT_LOG_ORIGIN };
}

export function auditConfig(vars: AuditVariables, runtime: RuntimeVariables, cwd: string): AuditConfig {
  const takeoverIntervalMs = vars.AUDIT_TAKEOVER_INTERVAL_MS ?? 500;
  const sequencingTimeoutMs = vars.AUDIT_SEQUENCING_TIMEOUT_MS ?? 10_000;
  // A sequencer that dies is replaced within one takeover interval; a wait shorter than that fails every decision meanwhile.
  if (sequencingTimeoutMs <= takeoverIntervalMs) {
    throw new ConfigurationError('Invalid configuration: AUDIT_SEQUENCING_TIMEOUT_MS must be greater than AUDIT_TAKEOVER_INTERVAL_MS');
  }
  if (isProduction(runtime) && !vars.AUDIT_SIGNING_KEY_FILE) {
    throw new ConfigurationError(
      'Invalid configuration: AUDIT_SIGNING_KEY_FILE is required when NODE_ENV=production: the path of an Ed25519 private key in PKCS#8 PEM (openssl genpkey -algorithm ed25519 -out audit-signing-key.pem)',
    );
  }
  return {
    ...checkpointKeyConfig(vars, runtime, cwd),
    checkpointIntervalMs: vars.AUDIT_CHECKPOINT_INTERVAL_MS ?? 1_000,
    batchLimit: vars.AUDIT_BATCH_LIMIT ?? 500,
    sequencerIntervalMs: vars.AUDIT_SEQUENCER_INTERVAL_MS ?? 1_000,
    takeoverIntervalMs,
    sequencingTimeoutMs,
    readinessLagMs: vars.AUDIT_READINESS_LAG_MS ?? 2_000,
    // Each walk is a thread with its own heap and, on PostgreSQL, a connection of its own.
    verificationsMax: vars.AUDIT_VERIFICATIONS_MAX ?? 2,
    tilesPublic: vars.AUDIT_TILES_PUBLIC === 'true',
  };
}

/** What audit:verify --checkpoint reads: the key, checked as the server checks it (NODE_ENV=production refuses one others may read). */
export function loadCheckpointKeyConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): CheckpointKeyConfig {
  const [vars, runtime] = readVariables(env, [CheckpointKeyVariables, RuntimeVariables]);
  return checkpointKeyConfig(vars, runtime, cwd);
}
