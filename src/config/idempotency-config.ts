import { IsOptional, ValidateBy } from 'class-validator';
import { durationSeconds } from './durations';

/** The longest an Idempotency-Key's answer is kept: 30 days. */
export const IDEMPOTENCY_TTL_MAX_SECONDS = 2_592_000;

/** How long a decision's answer is kept for a retry with the same Idempotency-Key (docs/api.md#retrying-a-decision-idempotency-key). */
export interface IdempotencyConfig {
  ttlSeconds: number;
}

export class IdempotencyVariables {
  @IsOptional()
  @ValidateBy({
    name: 'isIdempotencyTtl',
    validator: {
      validate: (value) => typeof value === 'string' && (durationSeconds(value) ?? Infinity) <= IDEMPOTENCY_TTL_MAX_SECONDS,
      defaultMessage: () => 'IDEMPOTENCY_TTL must be a duration with its unit (s, m, h or d), such as 24h, 90m or 7d, up to 30d',
    },
  })
  IDEMPOTENCY_TTL?: string;
}

export function idempotencyConfig(vars: IdempotencyVariables): IdempotencyConfig {
  return { ttlSeconds: durationSeconds(vars.IDEMPOTENCY_TTL ?? '24h') as number };
}
