const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: statement timeout, shutting down, starting up, out of connections, authentication failed.
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '28P01',
  '28000',
  'SQLITE_CANTOPEN',
]);
// pg's own messages: a dropped connection, no connection within the timeout, no answer within the timeout.
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout/i;

/**
 * True when a failure means the database cannot serve right now (unreachable, refused, timed out, out of
 * connections, refusing our credentials), rather than a fault in the request.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 is every connection exception; SQLITE_BUSY_* are the extended busy codes.
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_BUSY'))) {
    return true;
  }
  if (error instanceof AggregateError) {
    return error.errors.some(isDatabaseUnavailable);
  }
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/** True when PostgreSQL cancelled a statement that ran past statement_timeout (DATABASE_STATEMENT_TIMEOUT_MS). */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '57014';
}

// PostgreSQL: disk full, I/O error.
const STORAGE_SQLSTATES = new Set(['53100', '58030']);

function codeOf(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when the database takes no writes: a PostgreSQL standby or read-only transaction (25006), a
 * read-only SQLite file or connection (SQLITE_READONLY*).
 */
export function isReadOnlyRefusal(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code === '25006' || code.startsWith('SQLITE_READONLY'));
}

/**
 * True when the database could not store data: a full disk, a read-only file or database, or an I/O
 * error (SQLite's SQLITE_FULL, SQLITE_READONLY* and SQLITE_IOERR*, and their PostgreSQL counterparts).
 */
export function isStorageFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) {
    return false;
  }
  return isReadOnlyRefusal(error) || STORAGE_SQLSTATES.has(code) || code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR');
}
