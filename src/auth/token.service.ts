import { Injectable } from '@nestjs/common';
import { JwtService, TokenExpiredError } from '@nestjs/jwt';
import type { DenialReason } from '../common';
import { AuthenticatedOfficer, MAX_CLEARANCE, MIN_CLEARANCE } from './officer';

export class TokenRejectedError extends Error {
  constructor(readonly reason: Extract<DenialReason, 'TOKEN_INVALID' | 'TOKEN_EXPIRED'>) {
    super(reason);
  }
}

const TTL_FORMAT = /^[1-9][0-9]*[smhd]$/;

function isValidClearance(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= MIN_CLEARANCE && (value as number) <= MAX_CLEARANCE;
}

@Injectable()
export class TokenService {
  constructor(private readonly jwt: JwtService) {}

  /** Signature, algorithm, issuer/audience and expiry are checked by the JWT library; the claims' shape here. */
  verify(token: string): AuthenticatedOfficer {
    let claims: Record<string, unknown>;
    try {
      claims = this.jwt.verify<Record<string, unknown>>(token);
    } catch (error) {
      throw new TokenRejectedError(error instanceof TokenExpiredError ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID');
    }
    const { sub, clearance, exp } = claims;
    if (typeof sub !== 'string' || sub.trim() === '' || !isValidClearance(clearance) || typeof exp !== 'number') {
      throw new TokenRejectedError('TOKEN_INVALID');
    }
    return { id: sub, clearance };
  }

  /** @param ttl a lifetime such as `90s`, `15m`, `1h` or `7d` */
  issue(officerId: string, clearance: number, ttl: string): string {
    if (officerId.trim() === '') {
      throw new RangeError('the officer id must not be blank');
    }
    if (!isValidClearance(clearance)) {
      throw new RangeError(`clearance must be an integer from ${MIN_CLEARANCE} to ${MAX_CLEARANCE}`);
    }
    if (!TTL_FORMAT.test(ttl)) {
      throw new RangeError('ttl must be a number followed by s, m, h or d, e.g. 1h');
    }
    return this.jwt.sign({ clearance }, { subject: officerId, expiresIn: ttl as `${number}h` });
  }
}
