import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { RequestOrigin as Origin } from '../common';

/** Where a request came from, as the audit trail records it (the same type as common's). */
export type RequestOrigin = Origin;

export function requestOrigin(req: Request): Origin {
  const assetId: unknown = req.params?.asset_id;
  return {
    requestId: req.requestId,
    ip: req.ip ?? null,
    method: req.method,
    path: req.originalUrl.split('?')[0],
    assetId: typeof assetId === 'string' ? assetId : null,
  };
}

/** The request's origin as a handler parameter, so controllers need no `@Req()`. */
export const RequestOrigin = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  requestOrigin(context.switchToHttp().getRequest<Request>()),
);
