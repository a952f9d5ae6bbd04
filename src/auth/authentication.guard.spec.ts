import 'reflect-metadata';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { Request } from 'express';
import type { AuditEntry } from '../audit/audit-entry';
import { recordingAuditService } from '../audit/audit.testing';
import { UnauthenticatedError } from '../common';
import { Public } from './auth.decorators';
import { AuthenticationGuard } from './authentication.guard';
import { signHs256, tokenServiceFor } from './token.testing';

class Probe {
  @Public()
  open(this: void): void {}

  guarded(this: void): void {}
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

/** Just the parts of an express request the guard and the audit origin read. */
function fakeRequest({ authorization, params = {}, method = 'GET', originalUrl = '/v1/fleet/star-destroyers' }: FakeRequestOptions = {}) {
  const headers: Record<string, string | undefined> = { authorization };
  return {
    get: (name: string) => headers[name.toLowerCase()],
    params,
    method,
    originalUrl,
    ip: '10.0.0.7',
    requestId: 'req-1',
  } as unknown as Request;
}

function contextFor(request: Request, handler: (this: void) => void = Probe.prototype.guarded, controller: new () => object = Probe) {
  return new ExecutionContextHost([request, {}, () => undefined], controller, handler);
}

describe('AuthenticationGuard', () => {
  const tokens = tokenServiceFor();
  let calls: AuditEntry[];
  let sut: AuthenticationGuard;

  beforeEach(() => {
    const recording = recordingAuditService();
    calls = recording.entries;
    sut = new AuthenticationGuard(new Reflector(), tokens, recording.audit);
  });

  /** Asserts the guard refuses with 401 and the given message. */
  const refuses = (request: Request, message: string) =>
    assert.rejects(sut.canActivate(contextFor(request)), (error: unknown) => {
      assert.ok(error instanceof UnauthenticatedError, `expected UnauthenticatedError, got ${String(error)}`);
      assert.equal(error.status, 401);
      assert.equal(error.errorCode, 'UNAUTHENTICATED');
      assert.equal(error.message, message);
      assert.deepEqual(error.headers, { 'WWW-Authenticate': 'Bearer' });
      return true;
    });

  it('lets a @Public() handler through without a token and records nothing', async () => {
    const request = fakeRequest();

    assert.equal(await sut.canActivate(contextFor(request, Probe.prototype.open)), true);
    assert.equal(request.officer, undefined);
    assert.deepEqual(calls, []);
  });

  it('lets every handler of a @Public() controller through without a token', async () => {
    assert.equal(await sut.canActivate(contextFor(fakeRequest(), PublicProbe.prototype.handler, PublicProbe)), true);
    assert.deepEqual(calls, []);
  });

  it('refuses a request without an Authorization header with 401 and records one TOKEN_MISSING denial under the asset', async () => {
    const request = fakeRequest({ params: { asset_id: 'TIE-0001' }, method: 'DELETE', originalUrl: '/v1/assets/TIE-0001?dry=1' });

    await refuses(request, 'A bearer token is required');

    assert.deepEqual(calls, [
      {
        action: 'auth.authenticate',
        outcome: 'denied',
        reason: 'TOKEN_MISSING',
        assetId: 'TIE-0001',
        origin: { requestId: 'req-1', ip: '10.0.0.7', method: 'DELETE', path: '/v1/assets/TIE-0001' },
      },
    ]);
    assert.equal(request.officer, undefined);
  });

  it('records a null asset id when the route names no asset', async () => {
    await refuses(fakeRequest(), 'A bearer token is required');

    assert.equal(calls.length, 1);
    assert.equal(calls[0].assetId, null);
    assert.equal(calls[0].origin.path, '/v1/fleet/star-destroyers');
  });

  it('refuses a non-Bearer scheme as TOKEN_INVALID, even with a valid token', async () => {
    const token = tokens.issue('officer-7', 7, '1h');

    await refuses(fakeRequest({ authorization: `Basic ${token}` }), 'The bearer token is invalid');

    assert.deepEqual(
      calls.map((entry) => [entry.action, entry.outcome, entry.reason]),
      [['auth.authenticate', 'denied', 'TOKEN_INVALID']],
    );
  });

  it('refuses "Bearer" without a token as TOKEN_INVALID', async () => {
    await refuses(fakeRequest({ authorization: 'Bearer ' }), 'The bearer token is invalid');

    assert.deepEqual(
      calls.map((entry) => entry.reason),
      ['TOKEN_INVALID'],
    );
  });

  it('refuses a token signed with another secret as TOKEN_INVALID', async () => {
    const forged = tokenServiceFor({ JWT_SECRET: 'another-secret-that-is-also-32-characters-long' }).issue('officer-7', 10, '1h');

    await refuses(fakeRequest({ authorization: `Bearer ${forged}` }), 'The bearer token is invalid');

    assert.deepEqual(
      calls.map((entry) => entry.reason),
      ['TOKEN_INVALID'],
    );
  });

  it('refuses an expired token as TOKEN_EXPIRED', async () => {
    const expired = signHs256({ sub: 'officer-7', clearance: 7, exp: Math.floor(Date.now() / 1000) - 60 });

    await refuses(fakeRequest({ authorization: `Bearer ${expired}` }), 'The bearer token has expired');

    assert.deepEqual(
      calls.map((entry) => [entry.action, entry.outcome, entry.reason]),
      [['auth.authenticate', 'denied', 'TOKEN_EXPIRED']],
    );
  });

  it('accepts a valid token, puts the officer on the request and records nothing', async () => {
    const request = fakeRequest({ authorization: `Bearer ${tokens.issue('officer-7', 7, '1h')}` });

    assert.equal(await sut.canActivate(contextFor(request)), true);

    assert.deepEqual(request.officer, { id: 'officer-7', clearance: 7 });
    assert.deepEqual(calls, []);
  });

  it('accepts the scheme in any letter case', async () => {
    const request = fakeRequest({ authorization: `bearer ${tokens.issue('officer-2', 2, '1h')}` });

    assert.equal(await sut.canActivate(contextFor(request)), true);
    assert.deepEqual(request.officer, { id: 'officer-2', clearance: 2 });
  });

  it('records exactly one audit event per refused request', async () => {
    const refusals: Array<[string | undefined, string]> = [
      [undefined, 'A bearer token is required'],
      ['Token abc', 'The bearer token is invalid'],
      ['Bearer not.a.jwt', 'The bearer token is invalid'],
    ];
    for (const [authorization, message] of refusals) {
      await refuses(fakeRequest({ authorization }), message);
    }

    assert.deepEqual(
      calls.map((entry) => entry.reason),
      ['TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_INVALID'],
    );
  });
});
