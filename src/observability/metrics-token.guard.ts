import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AUDIT_ACTIONS, UnauthenticatedError } from '../common';
import { APP_CONFIG, type AppConfig } from '../config';

const BEARER = /^Bearer +(\S+)$/i;
export const METRICS_TOKEN_REQUIRED = 'The metrics bearer token is required';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set, and in
 * production, where it is closed until one is set. Digests of equal length are compared in constant
 * time, so the answer's timing tells nothing of the token. A refusal is a 401 like any other, and recorded.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly required: boolean;
  private readonly expected?: Buffer;

  constructor(@Inject(APP_CONFIG) { metricsToken, production }: AppConfig) {
    this.required = metricsToken !== undefined || production;
    this.expected = metricsToken === undefined ? undefined : digest(metricsToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.required) {
      return true;
    }
    const header = context.switchToHttp().getRequest<Request>().get('authorization');
    const offered = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (offered !== undefined && this.expected !== undefined && timingSafeEqual(digest(offered), this.expected)) {
      return true;
    }
    throw new UnauthenticatedError(METRICS_TOKEN_REQUIRED).deniedAs({
      action: AUDIT_ACTIONS.authenticate,
      reason: header === undefined ? 'TOKEN_MISSING' : 'TOKEN_INVALID',
    });
  }
}
