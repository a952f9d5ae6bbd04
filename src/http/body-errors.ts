import { CanActivate, ExecutionContext, HttpException, Injectable } from '@nestjs/common';
import { json, type NextFunction, type Request, type Response } from 'express';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationFailedError, Span } from '../common';

/** The only media type a request body may have; the JSON parser reads nothing else. */
export const JSON_MEDIA_TYPE = 'application/json';

declare module 'express-serve-static-core' {
  interface Request {
    /** Why the body could not be read; raised only once the caller is authenticated and cleared. */
    bodyError?: Error;
  }
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

function toApiError(error: BodyParserError): Error {
  switch (error.type) {
    case 'entity.too.large':
      return new PayloadTooLargeError('Request body exceeds the 16 KB limit');
    case 'entity.parse.failed':
      return new ValidationFailedError('Request body is not valid JSON');
    default:
      return error.status && error.status >= 400 && error.status < 500
        ? new HttpException('Request body could not be read', error.status)
        : error;
  }
}

/** A body length, zero included, or a transfer encoding: when the JSON parser reads a body (type-is's hasBody). */
function announcesBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** The Content-Type's charset parameter is absent or names UTF-8. */
function isUtf8OrUndeclared(req: Request): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/** A body of at least one byte. */
function carriesBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/**
 * Reads a JSON body of at most `limit` into req.body, in one middleware that a request without a body
 * passes straight through. A failure to read the body is held back on the request instead of answered,
 * so that a bad token or clearance is reported before a bad body, as the contract orders the checks. A
 * body that is not JSON would otherwise reach the handler as no body at all (valid JSON sent as
 * text/plain would look like an empty request): it is held back the same way.
 */
export function readJsonBodies(limit: string): (req: Request, res: Response, next: NextFunction) => void {
  const parse = json({ limit, strict: false });
  return (req, res, next) => {
    if (!announcesBody(req)) {
      next();
      return;
    }
    // JSON between systems is UTF-8 (RFC 8259, 8.1): any other declared charset is refused unread.
    if (!isUtf8OrUndeclared(req)) {
      req.bodyError = new UnsupportedMediaTypeError('Request body must be JSON in UTF-8');
      next();
      return;
    }
    parse(req, res, (error?: unknown) => {
      if (error) {
        req.body = undefined;
        req.bodyError = toApiError(error as BodyParserError);
      } else if (carriesBody(req) && !req.is(JSON_MEDIA_TYPE)) {
        req.body = undefined;
        req.bodyError = new UnsupportedMediaTypeError(`Request body must be ${JSON_MEDIA_TYPE}`);
      }
      next();
    });
  };
}

/**
 * Raises the body failure held back by readJsonBodies, once the token and clearance are checked. A guard
 * rather than an interceptor: with no interceptor at all, Nest runs no RxJS chain for any request.
 */
@Injectable()
export class BodyErrorGuard implements CanActivate {
  @Span()
  canActivate(context: ExecutionContext): boolean {
    const { bodyError } = context.switchToHttp().getRequest<Request>();
    if (bodyError) {
      throw bodyError;
    }
    return true;
  }
}
