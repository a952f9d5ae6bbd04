import { isIP } from 'node:net';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ValidationFailedError, Span } from '../common';
import { SERVER_CONFIG, type ServerConfig } from '../config';

/** Whether a request's X-Forwarded-For, read when proxies are trusted, holds anything but IP addresses. */
export function forwardsForgedAddresses(req: Request, trusting: boolean): boolean {
  const forwarded = req.get('x-forwarded-for');
  return trusting && forwarded !== undefined && !forwarded.split(',').every((entry) => isIP(entry.trim()) !== 0);
}

export const FORGED_FORWARDED_FOR = 'X-Forwarded-For must be a comma-separated list of IP addresses';

/**
 * With TRUST_PROXY on, the client address comes from X-Forwarded-For, which a proxy appends to whatever
 * the client sent: a chain holding anything but IP addresses is refused before any other check, so the
 * rate limits and the audit trail only ever see a valid address. Without trusted proxies the header is
 * not read at all.
 */
@Injectable()
export class ForwardedForGuard implements CanActivate {
  private readonly trusting: boolean;

  constructor(@Inject(SERVER_CONFIG) config: ServerConfig) {
    this.trusting = config.trustProxy !== 0;
  }

  @Span()
  canActivate(context: ExecutionContext): boolean {
    if (forwardsForgedAddresses(context.switchToHttp().getRequest<Request>(), this.trusting)) {
      throw new ValidationFailedError(FORGED_FORWARDED_FOR);
    }
    return true;
  }
}
