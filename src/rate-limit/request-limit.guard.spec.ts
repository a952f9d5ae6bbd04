import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerGuard } from '@nestjs/throttler';
import type { RateLimitConfig } from '../config';
import { RequestLimitGuard } from './request-limit.guard';

const context = {} as ExecutionContext;

function guard(enabled: boolean) {
  const asked: ExecutionContext[] = [];
  const throttler = { canActivate: async (seen: ExecutionContext) => (asked.push(seen), false) } as unknown as ThrottlerGuard;
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
