import { ConfigurationError } from '../config';
import { DatabaseNotMigratedError, isDatabaseUnavailable } from '../database';
import { AppLogger } from '../observability';

type SystemError = Error & { code?: string; syscall?: string; path?: string; address?: string; port?: number };

const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'EEXIST', 'ENOTDIR', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);
/** PostgreSQL refused the credentials (class 28) or has no such database (3D000). */
const DATABASE_REFUSED = /^(28|3D)/;

// The configuration may be what failed, so the level is read from the environment itself.
const debugging = () => process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';

/** One line that says what failed and what to do about it; the stack only helps a developer. */
export function describeStartupFailure(error: unknown): string {
  if (error instanceof ConfigurationError || error instanceof DatabaseNotMigratedError || !(error instanceof Error)) {
    return String(error instanceof Error ? error.message : error);
  }
  const { code, syscall, path, address, port } = error as SystemError;
  if (syscall === 'listen' || syscall === 'bind') {
    const where = `${address}:${port}`;
    return code === 'EADDRINUSE'
      ? `Cannot listen on ${where}: another process holds the port. Free the port or set PORT to another one`
      : `Cannot listen on ${where} (${code}): set HOST to an address of this machine and PORT to one above 1023`;
  }
  if (code !== undefined && NOT_WRITABLE.has(code)) {
    return `Cannot create or write ${path ?? 'the data directory'} (${code}): make it a directory the service's user may write (fix its permissions), or set DATABASE_URL elsewhere`;
  }
  if (isDatabaseUnavailable(error) || DATABASE_REFUSED.test(code ?? '')) {
    return `Cannot reach the database (${error.message}): check DATABASE_URL and that the database server is up`;
  }
  return `Start-up failed: ${error.message}`;
}

/**
 * Prints why the start-up failed, with the stack only when LOG_LEVEL=debug (or trace). A plain line on
 * stderr, not JSON: it may be that the configuration the logger needs is what failed.
 */
export function reportStartupFailure(error: unknown): void {
  console.error(describeStartupFailure(error));
  if (debugging() && error instanceof Error) {
    console.error(error.stack);
  }
}

/** The service's logger, less the stack Nest logs when a provider fails to start: reportStartupFailure says it in one line. */
export class StartupFailureQuietLogger extends AppLogger {
  override error(message: unknown, ...rest: unknown[]): void {
    if (rest.at(-1) !== 'ExceptionHandler' || debugging()) {
      super.error(message, ...rest);
    }
  }
}
