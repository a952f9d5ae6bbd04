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
