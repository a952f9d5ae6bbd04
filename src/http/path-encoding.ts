import { unescape } from 'node:querystring';
import type { NextFunction, Request, Response } from 'express';

function isWellEncoded(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** Re-encodes a segment from its lenient decoding, in which each invalid byte becomes U+FFFD. */
function repairSegment(segment: string): string {
  return isWellEncoded(segment) ? segment : encodeURIComponent(unescape(segment));
}

/**
 * Express fails a path with a malformed percent-encoding (`/v1/assets/%E0%A4%A`) while matching
 * routes, with a 400 that no guard sees and no audit records. Repaired here, the request is routed,
 * authenticated (and its refusal audited) like any other, and its parameter then fails validation.
 * `req.originalUrl` keeps what the caller sent, for the audit trail.
 */
export function repairPathEncoding(req: Request, _res: Response, next: NextFunction): void {
  const queryStart = req.url.indexOf('?');
  const path = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
  // Only a percent sign can start a malformed encoding: most paths have none, and skip the decoding.
  if (path.includes('%') && !isWellEncoded(path)) {
    req.url = path.split('/').map(repairSegment).join('/') + req.url.slice(path.length);
  }
  next();
}
