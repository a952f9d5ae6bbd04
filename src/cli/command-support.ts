import type { AppConfig } from '../config';

/** The most DATABASE_STATEMENT_TIMEOUT_MS allows, ten minutes. */
const LONG_STATEMENT_MS = 600_000;

/**
 * The configuration for a command that moves many records: the service's PostgreSQL timeouts are sized
 * for requests, while an import holds one transaction for as long as the file takes and an export's
 * batches may queue behind it. Both limits rise to ten minutes unless configured higher. No demo seed.
 */
export function forDataCommand(config: AppConfig): AppConfig {
  const { database } = config;
  if (database.dialect !== 'postgres') {
    return { ...config, seedDemo: false };
  }
  const statementMs = Math.max(database.timeouts.statementMs, LONG_STATEMENT_MS);
  const queryMs = Math.max(database.timeouts.queryMs, statementMs + 1_000);
  return { ...config, seedDemo: false, database: { ...database, timeouts: { ...database.timeouts, statementMs, queryMs } } };
}

/** Ends a command: its message on stderr, exit code 1, no stack trace. */
export function failCommand(error: unknown): void {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

/** 1234567 → "1,234,567". */
export const count = (value: number): string => value.toLocaleString('en');
