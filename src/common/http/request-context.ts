import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    /** Correlates the response, the logs and the audit trail of one request. */
    requestId: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps the caller's request id when it is sane, otherwise mints one; echoes it on every response. */
export function assignRequestId(req: Request, res: Response, next: NextFunction): void {
  const offered = req.get(REQUEST_ID_HEADER);
  req.requestId = offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
  res.set(REQUEST_ID_HEADER, req.requestId);
  next();
}

const API_ALIAS = '/api';

/** `/api/v1/...` is served by the same routes as `/v1/...`; `req.originalUrl` keeps what the caller sent. */
export function serveApiAlias(req: Request, _res: Response, next: NextFunction): void {
  if (/^\/api\/v1(?:[/?]|$)/.test(req.url)) {
    req.url = req.url.slice(API_ALIAS.length);
  }
  next();
}

/** Answers carry officers' data and refusals: no browser or proxy may keep them. */
export function forbidCaching(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  next();
}
