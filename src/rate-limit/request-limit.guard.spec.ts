import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerGuard, ThrottlerStorageService } from '@nestjs/throttler';
import type { RateLimitConfig } from '../config';
import { RequestLimitGuard } from './request-limit.guard';

const context = {} as ExecutionContext;

function guard(enabled: boolean) {
  const asked: ExecutionContext[] = [];
  /** A throttler that refuses every request it is asked about. */
  class RefusingThrottler extends ThrottlerGuard {
    override async canActivate(seen: ExecutionContext): Promise<boolean> {
      asked.push(seen);
      return false;
    }
  }
  const throttler = new RefusingThrottler([], new ThrottlerStorageService(), new Reflector());
  const config = { enabled } as RateLimitConfig;
  return { sut: new RequestLimitGuard(config, throttler), asked };
}

describe('RequestLimitGuard', () => {
  it('lets every request through at once when rate limiting is off, without asking the throttler', () => {
    const { sut, asked } = guard(false);
    assert.equal(sut.canActivate(context), true);
    assert.deepEqual(asked, []);
  });

  it("answers with the throttler's verdict when rate limiting is on", async () => {
    const { sut, asked } = guard(true);
    assert.equal(await sut.canActivate(context), false);
    assert.deepEqual(asked, [context]);
  });
});
