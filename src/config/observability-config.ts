import { IsIn, IsOptional, Matches } from 'class-validator';
import { isProduction, type RuntimeVariables } from './environment';

/** The levels LOG_LEVEL takes, from the fewest lines to the most; each includes those before it. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** What the service tells of itself: its log and its metrics. */
export interface ObservabilityConfig {
  /** NODE_ENV=production: logs in JSON, and GET /metrics closed unless METRICS_TOKEN is set. */
  production: boolean;
  logLevel: LogLevelName;
  /** The bearer token GET /metrics requires; unset: open, except in production, where it is then closed. */
  metricsToken?: string;
}

export class ObservabilityVariables {
  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: LogLevelName;

  @IsOptional()
  @Matches(/^[\x21-\x7e]{16,256}$/, { message: 'METRICS_TOKEN must be 16 to 256 printable characters without spaces' })
  METRICS_TOKEN?: string;
}

export function observabilityConfig(vars: ObservabilityVariables, runtime: RuntimeVariables): ObservabilityConfig {
  return { production: isProduction(runtime), logLevel: vars.LOG_LEVEL ?? 'info', metricsToken: vars.METRICS_TOKEN };
}
