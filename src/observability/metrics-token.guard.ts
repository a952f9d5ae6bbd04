import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { TokenRefusedError } from '../auth';
import { Span } from '../common';
import { OBSERVABILITY_CONFIG, type ObservabilityConfig } from '../config';

const BEARER = /^Bearer +(\S+)$/i;
export const METRICS_TOKEN_REQUIRED = 'The metrics bearer token is required';
/** What the closed endpoint says, so that whoever scrapes it knows no token can open it yet. */
export const METRICS_TOKEN_UNSET = 'Metrics are closed: NODE_ENV=production and no METRICS_TOKEN is configured; set METRICS_TOKEN to scrape them';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set, and in
 * production, where it is closed until one is set. Digests of equal length are compared in constant
 * time, so the answer's timing tells nothing of the token. A refusal is a 401 like any other (auth's
 * TokenRefusedError, under auth.authenticate), and recorded; closed for want of a token, its message
 * and a start-up warning say so.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly required: boolean;
  private readonly expected?: Buffer;

  constructor(@Inject(OBSERVABILITY_CONFIG) { metricsToken, production }: ObservabilityConfig) {
    this.required = metricsToken !== undefined || production;
    this.expected = metricsToken === undefined ? undefined : digest(metricsToken);
    if (this.required && this.expected === undefined) {
      new Logger('Metrics').warn(`${METRICS_TOKEN_UNSET}: GET /metrics answers 401`);
    }
  }

  @Span()
  canActivate(context: ExecutionContext): boolean {
    if (!this.required) {
      return true;
    }
    const header = context.switchToHttp().getRequest<Request>().get('authorization');
    const offered = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (offered !== undefined && this.expected !== undefined && timingSafeEqual(digest(offered), this.expected)) {
      return true;
    }
    throw new TokenRefusedError(header === undefined ? 'TOKEN_MISSING' : 'TOKEN_INVALID', this.expected === undefined ? METRICS_TOKEN_UNSET : METRICS_TOKEN_REQUIRED);
  }
}
