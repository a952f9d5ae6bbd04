import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import express, { type Request } from 'express';
import type { Denial } from '../common';
import { denialOf } from '../http';
import { OpenedBy, Public } from './auth.decorators';
import { TokenRefusedError } from './auth.errors';
import { AuthenticationGuard } from './authentication.guard';
import { signHs256, tokenServiceFor } from '../../test/support/tokens';

class Probe {
  @Public()
  open(this: void): void {}

  guarded(this: void): void {}

  @OpenedBy('AUDIT_TILES_PUBLIC')
  openable(this: void): void {}
}

@Public()
class PublicProbe {
  handler(this: void): void {}
}

interface FakeRequestOptions {
  authorization?: string;
  params?: Record<string, string>;
  method?: string;
  originalUrl?: string;
}

/** An Express request with just the parts the guard reads. */
function fakeRequest({ authorization, params = {}, method = 'GET', originalUrl = '/v1/fleet/star-destroyers' }: FakeRequestOptions = {}): Request {
  const request: Request = Object.create(express.request);
  // `ip` is a getter of Express's that asks the app; an own property stands in for it.
  Object.defineProperty(request, 'ip', { value: '10.0.0.7' });
  return Object.assign(request, { headers: authorization === undefined ? {} : { authorization }, params, method, originalUrl, requestId: 'req-1' });
}

function contextFor(request: Request, handler: (this: void) => void = Probe.prototype.guarded, controller: new () => object = Probe) {
  return new ExecutionContextHost([request, {}, () => undefined], controller, handler);
}

describe('AuthenticationGuard', () => {
  const tokens = tokenServiceFor();
  const sut = new AuthenticationGuard(new Reflector(), tokens, new Set());

  /** Asserts the guard refuses with 401 and the given message, and returns the denial the filter records of it. */
  async function refuses(request: Request, message: string): Promise<Denial | undefined> {
    let denial: Denial | undefined;
    await assert.rejects(async () => sut.canActivate(contextFor(request)), (error: unknown) => {
      assert.ok(error instanceof TokenRefusedError, `expected TokenRefusedError, got ${String(error)}`);
      assert.equal(error.status, 401);
      assert.equal(error.errorCode, 'UNAUTHENTICATED');
      assert.equal(error.message, message);
      assert.deepEqual(error.headers, { 'WWW-Authenticate': 'Bearer' });
      denial = denialOf(error, request);
      return true;
    });
    return denial;
  }

  // At once: true itself, not a promise for Nest to wait on.
  it('lets a @Public() handler through without a token, at once', () => {
    const request = fakeRequest();

    assert.equal(sut.canActivate(contextFor(request, Probe.prototype.open)), true);
    assert.equal(request.officer, undefined);
  });

  it('lets every handler of a @Public() controller through without a token, at once', () => {
    assert.equal(sut.canActivate(contextFor(fakeRequest(), PublicProbe.prototype.handler, PublicProbe)), true);
  });

  it('lets a route opened by a switch the deployment set through without a token, at once', () => {
    const opened = new AuthenticationGuard(new Reflector(), tokens, new Set(['AUDIT_TILES_PUBLIC']));

    assert.equal(opened.canActivate(contextFor(fakeRequest(), Probe.prototype.openable)), true);
  });

  it('refuses a route that a switch could open, without a token, while the deployment has not set it', async () => {
    await assert.rejects(async () => sut.canActivate(contextFor(fakeRequest(), Probe.prototype.openable)), TokenRefusedError);
  });

  it('refuses a request without an Authorization header with 401, as a TOKEN_MISSING denial of auth.authenticate', async () => {
    const request = fakeRequest({ params: { asset_id: 'TIE-0001' }, method: 'DELETE', originalUrl: '/v1/assets/TIE-0001?dry=1' });

    assert.deepEqual(await refuses(request, 'A bearer token is required'), { action: 'auth.authenticate', reason: 'TOKEN_MISSING' });
    assert.equal(request.officer, undefined);
  });

  it('refuses a non-Bearer scheme as TOKEN_INVALID, even with a valid token', async () => {
    const token = tokens.issue('officer-7', 7, '1h');

    const denial = await refuses(fakeRequest({ authorization: `Basic ${token}` }), 'The bearer token is invalid');

    assert.deepEqual(denial, { action: 'auth.authenticate', reason: 'TOKEN_INVALID' });
  });

  it('refuses "Bearer" without a token as TOKEN_INVALID', async () => {
    assert.equal((await refuses(fakeRequest({ authorization: 'Bearer ' }), 'The bearer token is invalid'))?.reason, 'TOKEN_INVALID');
  });

  it('refuses a token signed with another secret as TOKEN_INVALID', async () => {
    const forged = tokenServiceFor({ JWT_SECRET: 'another-secret-that-is-also-32-characters-long' }).issue('officer-7', 10, '1h');

    const denial = await refuses(fakeRequest({ authorization: `Bearer ${forged}` }), 'The bearer token is invalid');

    assert.equal(denial?.reason, 'TOKEN_INVALID');
  });

  it('refuses an expired token as TOKEN_EXPIRED', async () => {
    const expired = signHs256({ sub: 'officer-7', clearance: 7, exp: Math.floor(Date.now() / 1000) - 60 });

    const denial = await refuses(fakeRequest({ authorization: `Bearer ${expired}` }), 'The bearer token has expired');

    assert.deepEqual(denial, { action: 'auth.authenticate', reason: 'TOKEN_EXPIRED' });
  });

  it('accepts a valid token and puts the officer on the request', async () => {
    const request = fakeRequest({ authorization: `Bearer ${tokens.issue('officer-7', 7, '1h')}` });

    assert.equal(await sut.canActivate(contextFor(request)), true);

    assert.deepEqual(request.officer, { id: 'officer-7', clearance: 7 });
  });

  it('accepts the scheme in any letter case', async () => {
    const request = fakeRequest({ authorization: `bearer ${tokens.issue('officer-2', 2, '1h')}` });

    assert.equal(await sut.canActivate(contextFor(request)), true);
    assert.deepEqual(request.officer, { id: 'officer-2', clearance: 2 });
  });

  it('refuses a token that is not a JWT as TOKEN_INVALID', async () => {
    assert.equal((await refuses(fakeRequest({ authorization: 'Bearer not.a.jwt' }), 'The bearer token is invalid'))?.reason, 'TOKEN_INVALID');
  });
});
