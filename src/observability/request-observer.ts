import { Injectable, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Metrics, type RequestObservation } from './metrics';
import { ServingLoad } from './serving-load';

export const UNMATCHED_ROUTE = 'unmatched';

/** The URL without its query string, which the route alone does not give for an unknown one. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The one observation point of every request: first in the Express chain, it sees the answers of
 * guards (401, 403, 429), of unknown routes (404), of 405s and of failures alike, which an interceptor
 * (after the guards) would miss. Each request gives one access line (its path, and its route when one matched) and one count in the request
 * metrics. The line never carries a header or a body, so no token and no officer's text reaches a log.
 */
@Injectable()
export class RequestObserver {
  private readonly logger = new Logger('HTTP');

  constructor(
    private readonly metrics: Metrics,
    private readonly load: ServingLoad,
  ) {}

  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // 'close' comes after 'finish', and alone when the client leaves before the answer is sent. It comes
    // once, so `on` does: `once` would wrap the listener in two more objects on every request.
    res.on('close', () => this.observe(req, res, Number(process.hrtime.bigint() - started) / 1e9));
    next();
  };

  private observe(req: Request, res: Response, seconds: number): void {
    const observation: RequestObservation = {
      method: req.method,
      route: (req.route as { path?: string } | undefined)?.path ?? UNMATCHED_ROUTE,
      status: res.writableFinished ? res.statusCode : 0,
      seconds,
    };
    this.metrics.requestObserved(observation);
    this.load.requestAnswered();
    this.logger.log(res.writableFinished ? 'request completed' : 'request aborted by the client', {
      request_id: req.requestId,
      method: observation.method,
      path: pathOf(req.originalUrl),
      route: observation.route,
      status: observation.status,
      duration_ms: Math.round(seconds * 100_000) / 100,
      actor: req.officer?.id,
    });
  }
}
