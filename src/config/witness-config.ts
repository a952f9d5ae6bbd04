import { IsOptional, Matches } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { durationSeconds } from './durations';
import { ConfigurationError } from './environment';

/** The witnesses that cosign the audit checkpoints (docs/audit.md#witnesses). */
export interface WitnessConfig {
  /** Each witness's submission URL prefix and verifier key (C2SP, type 0x04). */
  witnesses: ConfiguredWitness[];
  /** GET /v1/audit/checkpoint serves the latest checkpoint cosigned by at least this many of them; 0 serves the latest signed. */
  quorum: number;
  /** Readiness fails (with a quorum) when the latest checkpoint that reached it was last cosigned longer ago than this. */
  maxAgeSeconds: number;
}

export interface ConfiguredWitness {
  url: string;
  key: string;
}

/** The shape of a cosigner verifier key: name, 8 hex digits, base64 of 0x04 and 32 bytes (which start "B"). */
const COSIGNER_KEY = /^[\x21-\x2a\x2c-\x7e]{1,255}\+[0-9a-f]{8}\+B[A-Za-z0-9+/]{43}$/;
const WITNESSES_MAX = 32;

export class WitnessVariables {
  @IsOptional()
  AUDIT_WITNESSES?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(0, WITNESSES_MAX)
  AUDIT_WITNESS_QUORUM?: number;

  @IsOptional()
  @Matches(/^[1-9][0-9]{0,6}[smhd]$/, { message: 'AUDIT_WITNESS_MAX_AGE must be a duration such as 90s, 10m or 1h' })
  AUDIT_WITNESS_MAX_AGE?: string;
}

function isWitness(value: unknown): value is ConfiguredWitness {
  const { url, key } = (value ?? {}) as Partial<ConfiguredWitness>;
  return typeof url === 'string' && /^https?:\/\/[^\s/]+/.test(url) && URL.canParse(url) && typeof key === 'string' && COSIGNER_KEY.test(key);
}

function configuredWitnesses(text: string | undefined): ConfiguredWitness[] {
  if (text === undefined) {
    return [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length > WITNESSES_MAX || !parsed.every(isWitness)) {
    throw new ConfigurationError(
      `Invalid configuration: AUDIT_WITNESSES must be a JSON array of at most ${WITNESSES_MAX} {"url": "https://witness.example/", "key": "<the witness's verifier key, type 0x04>"}`,
    );
  }
  if (new Set(parsed.map((witness) => witness.key)).size !== parsed.length) {
    throw new ConfigurationError('Invalid configuration: AUDIT_WITNESSES names a witness key twice');
  }
  return parsed.map(({ url, key }) => ({ url: url.replace(/\/+$/, ''), key }));
}

export function witnessConfig(vars: WitnessVariables): WitnessConfig {
  const witnesses = configuredWitnesses(vars.AUDIT_WITNESSES);
  const quorum = vars.AUDIT_WITNESS_QUORUM ?? 0;
  if (quorum > witnesses.length) {
    throw new ConfigurationError(`Invalid configuration: AUDIT_WITNESS_QUORUM (${quorum}) must not exceed the number of AUDIT_WITNESSES (${witnesses.length})`);
  }
  return { witnesses, quorum, maxAgeSeconds: durationSeconds(vars.AUDIT_WITNESS_MAX_AGE ?? '10m') as number };
}
