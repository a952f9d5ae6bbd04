import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { NextFunction, Request, Response } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    /** Correlates the response, the logs and the audit trail of one request. */
    requestId: string;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps the caller's request id when it is sane, otherwise mints one; echoes it on every response. */
export function assignRequestId(req: Request, res: Response, next: NextFunction): void {
  const offered = req.get(REQUEST_ID_HEADER);
  req.requestId = offered && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
  next();
}

/** The prefix that serves the versioned API a second time. */
export const API_ALIAS = '/api';

/** Whether a route's path is served under API_ALIAS too: the versioned API (`/v1/...`), not the health checks or /metrics. */
export const isServedUnderApiAlias = (path: string): boolean => /^\/v1(?:[/?]|$)/.test(path);

/** `/api/v1/...` is served by the same routes as `/v1/...`; `req.originalUrl` keeps what the caller sent. */
export function serveApiAlias(req: Request, _res: Response, next: NextFunction): void {
  if (req.url.startsWith(API_ALIAS) && isServedUnderApiAlias(req.url.slice(API_ALIAS.length))) {
    req.url = req.url.slice(API_ALIAS.length);
  }
  next();
}

type Middleware = (req: Request, res: Response, next: (error?: unknown) => void) => void;
/** A middleware that sees only what node:http gives it, as helmet does. */
type NodeMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
export type HeaderList = readonly (readonly [name: string, value: string])[];

/**
 * The headers a middleware sets when they do not depend on the request (helmet's, for a fixed policy),
 * read once by running it against a response that is never sent. Fails at start-up if it does anything else.
 */
export function headersSetBy(middleware: NodeMiddleware): HeaderList {
  const request = new IncomingMessage(new Socket());
  const response = new ServerResponse(request);
  let passed = false;
  middleware(request, response, (error?: unknown) => {
    passed = error === undefined;
  });
  if (!passed) {
    throw new Error('the middleware did not pass every request on with fixed headers');
  }
  return Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)] as const);
}

/**
 * Sets headers every response carries, in one middleware: helmet's policy, computed once, costs twelve
 * middleware calls per request otherwise.
 */
export function fixedHeaders(headers: HeaderList): Middleware {
  return (_req, res, next) => {
    for (const [name, value] of headers) {
      res.setHeader(name, value);
    }
    next();
  };
}
