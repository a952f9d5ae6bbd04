import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestException, GatewayTimeoutException, HttpException, HttpStatus, Logger, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { Test } from '@nestjs/testing';
import { AuditedDenial, RateLimitedError, ResourceNotFoundError, ServiceUnavailableError, UnauthenticatedError, type Denial, DENIAL_RECORDER, type DenialRecorder, UNAVAILABILITY_CHECK } from '../common';
import type { RequestOrigin } from './request-origin';
import { ApiExceptionFilter } from './api-exception.filter';

/** A stand-in for an Express response that keeps what the filter sends. */
function captureResponse(request: object = {}) {
  const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return response;
    },
    set(headers: Record<string, string>) {
      Object.assign(sent.headers, headers);
      return response;
    },
    json(body: unknown) {
      sent.body = body;
      return response;
    },
  };
  return { host: new ExecutionContextHost([request, response]), sent };
}

/** A token refusal as auth throws one: it names its own action. */
class TokenMissingError extends AuditedDenial {
  readonly status = HttpStatus.UNAUTHORIZED;
  readonly errorCode = 'UNAUTHENTICATED';
  readonly denialReason = 'TOKEN_MISSING';
  override readonly deniedAction = 'auth.authenticate';
}

/** A feature's refusal on its route: the route declares the action; this one names the asset it refuses. */
class RequestNotPendingError extends AuditedDenial {
  readonly status = HttpStatus.CONFLICT;
  readonly errorCode = 'DECOMMISSION_REQUEST_NOT_PENDING';
  readonly denialReason = 'DECOMMISSION_REQUEST_NOT_PENDING';

  constructor(override readonly deniedAssetId?: string) {
    super('Decommission request is no longer pending');
  }
}

/** A recorder that records nothing, for failures that are not denials. */
const NO_DENIALS: DenialRecorder = { recordDenial: () => Promise.reject(new Error('not a denial')) };
const NEVER_UNAVAILABLE = () => undefined;

describe('ApiExceptionFilter', () => {
  const unavailable = (error: unknown) => (error instanceof Error && error.message === 'db down' ? new ServiceUnavailableError('The service is temporarily unavailable') : undefined);

  it('sends an ApiError as the spec body with its status and headers', async () => {
    const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, NO_DENIALS);
    const { host, sent } = captureResponse();
    await sut.catch(new UnauthenticatedError('A bearer token is required'), host);
    assert.equal(sent.status, 401);
    assert.deepEqual(sent.body, { status: 'error', message: 'A bearer token is required', error_code: 'UNAUTHENTICATED' });
    assert.equal(sent.headers['WWW-Authenticate'], 'Bearer');
  });

  it('gives an unknown route NOT_FOUND without echoing the path', async () => {
    const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, NO_DENIALS);
    const { host, sent } = captureResponse();
    await sut.catch(new NotFoundException('Cannot GET /secret/path'), host);
    assert.deepEqual(sent.body, { status: 'error', message: 'Route not found', error_code: 'NOT_FOUND' });
  });

  it("maps Nest's own 4xx exceptions to a stable code by status", async () => {
    const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, NO_DENIALS);
    const { host, sent } = captureResponse();
    await sut.catch(new BadRequestException('bad'), host);
    assert.equal(sent.status, 400);
    assert.equal((sent.body as { error_code: string }).error_code, 'VALIDATION_ERROR');
  });

  it('logs an unexpected error, its stack inside, with the request id', async (t) => {
    const logged = t.mock.method(Logger.prototype, 'error', () => undefined);
    const failure = new Error('disk on fire');
    const { host } = captureResponse({ requestId: 'req-500' });
    await new ApiExceptionFilter(NEVER_UNAVAILABLE, NO_DENIALS).catch(failure, host);
    assert.equal(logged.mock.callCount(), 1);
    assert.deepEqual(logged.mock.calls[0].arguments, [failure, { request_id: 'req-500' }]);
  });

  it('answers an unexpected error with a generic 500 that reveals nothing of it', async () => {
    const sut = new ApiExceptionFilter(unavailable, NO_DENIALS);
    const { host, sent } = captureResponse();
    await sut.catch(new Error('SELECT * FROM vessels failed at /srv/app.js:10'), host);
    assert.equal(sent.status, 500);
    assert.deepEqual(sent.body, { status: 'error', message: 'Internal server error', error_code: 'INTERNAL_ERROR' });
  });

  it("keeps the status of Nest's own 5xx exceptions, with a stable code and none of their message", async () => {
    const cases = [
      [new ServiceUnavailableException('pool drained at db.internal'), 503, 'SERVICE_UNAVAILABLE'],
      [new GatewayTimeoutException('upstream 10.0.0.7 timed out'), 504, 'GATEWAY_TIMEOUT'],
      [new HttpException('teapot on fire', 507), 507, 'INTERNAL_ERROR'],
    ] as const;
    for (const [exception, status, code] of cases) {
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, NO_DENIALS);
      const { host, sent } = captureResponse();
      await sut.catch(exception, host);
      assert.equal(sent.status, status);
      assert.equal((sent.body as { error_code: string }).error_code, code);
      assert.doesNotMatch((sent.body as { message: string }).message, /db\.internal|10\.0\.0\.7|teapot/);
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when the unavailability check recognises the error', async () => {
    const sut = new ApiExceptionFilter(unavailable, NO_DENIALS);
    const { host, sent } = captureResponse();
    await sut.catch(new Error('db down'), host);
    assert.equal(sent.status, 503);
    assert.deepEqual(sent.body, {
      status: 'error',
      message: 'The service is temporarily unavailable',
      error_code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('lets an ApiError through unchanged even when the check would match it', async () => {
    const sut = new ApiExceptionFilter(() => new ServiceUnavailableError('down'), NO_DENIALS);
    const { host, sent } = captureResponse();
    await sut.catch(new ResourceNotFoundError('ASSET_NOT_FOUND', 'Asset TIE-0001 not found'), host);
    assert.equal(sent.status, 404);
  });

  describe('denials', () => {
    const request = { requestId: 'req-1', ip: '10.0.0.7', method: 'DELETE', originalUrl: '/v1/assets/TIE-0001?x=1', params: { asset_id: 'TIE-0001' } };
    const denied = () => new TokenMissingError('A bearer token is required');
    const recorder = (record: DenialRecorder['recordDenial']) => ({ recordDenial: record });

    it('records the denial with the request origin before it answers', async () => {
      const recorded: Array<[Denial, RequestOrigin]> = [];
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async (denial, origin) => void recorded.push([denial, origin])));
      const { host, sent } = captureResponse(request);

      await sut.catch(denied(), host);

      assert.equal(sent.status, 401);
      assert.deepEqual(recorded, [
        [
          { action: 'auth.authenticate', reason: 'TOKEN_MISSING' },
          { requestId: 'req-1', ip: '10.0.0.7', method: 'DELETE', path: '/v1/assets/TIE-0001', assetId: 'TIE-0001' },
        ],
      ]);
    });

    it("records a refusal that names no action under its route's, by the request's officer, on the asset it names", async () => {
      const recorded: Denial[] = [];
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async (denial) => void recorded.push(denial)));
      const officer = { id: 'officer-8', clearance: 8 };
      const decided = { ...request, params: { request_id: 'c0ffee' }, officer, auditedAction: 'decommission.approve' };

      await sut.catch(new RequestNotPendingError('TIE-0001'), captureResponse(decided).host);
      await sut.catch(new RequestNotPendingError(), captureResponse(decided).host);

      assert.deepEqual(recorded, [
        { action: 'decommission.approve', reason: 'DECOMMISSION_REQUEST_NOT_PENDING', actor: officer, assetId: 'TIE-0001' },
        { action: 'decommission.approve', reason: 'DECOMMISSION_REQUEST_NOT_PENDING', actor: officer },
      ]);
    });

    it('prefers the action a refusal names to its route\'s', async () => {
      const recorded: Denial[] = [];
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async (denial) => void recorded.push(denial)));

      await sut.catch(denied(), captureResponse({ ...request, auditedAction: 'asset.decommission' }).host);

      assert.deepEqual(recorded, [{ action: 'auth.authenticate', reason: 'TOKEN_MISSING' }]);
    });

    it('answers 500, recording nothing, a refusal with no action to record it under: a fault, never an unaudited refusal', async (t) => {
      const logged = t.mock.method(Logger.prototype, 'error', () => undefined);
      let calls = 0;
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async () => void calls++));
      const { host, sent } = captureResponse(request);

      await sut.catch(new RequestNotPendingError('TIE-0001'), host);

      assert.equal(calls, 0);
      assert.equal(sent.status, 500);
      assert.deepEqual(sent.body, { status: 'error', message: 'Internal server error', error_code: 'INTERNAL_ERROR' });
      assert.match(String(logged.mock.calls[0].arguments[0]), /RequestNotPendingError \(DECOMMISSION_REQUEST_NOT_PENDING\).*declares no audited action/);
    });

    it('records nothing for an error that is no denial', async () => {
      let calls = 0;
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async () => void calls++));
      await sut.catch(new ResourceNotFoundError('ASSET_NOT_FOUND', 'Asset TIE-9999 not found'), captureResponse(request).host);
      assert.equal(calls, 0);
    });

    it('answers 503 instead of the denial when the recorder fails', async () => {
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async () => Promise.reject(new Error('disk full'))));
      const { host, sent } = captureResponse(request);

      await sut.catch(denied(), host);

      assert.equal(sent.status, 503);
      assert.deepEqual(sent.body, { status: 'error', message: 'The service is temporarily unavailable', error_code: 'SERVICE_UNAVAILABLE' });
    });

    it("answers the recorder's own ApiError (a 429 for a flood) instead of the denial", async () => {
      const sut = new ApiExceptionFilter(NEVER_UNAVAILABLE, recorder(async () => Promise.reject(new RateLimitedError(12.2))));
      const { host, sent } = captureResponse(request);

      await sut.catch(denied(), host);

      assert.equal(sent.status, 429);
      assert.equal(sent.headers['Retry-After'], '13');
      assert.equal((sent.body as { error_code: string }).error_code, 'RATE_LIMITED');
    });
  });
});

describe('ApiExceptionFilter as the global filter', () => {
  const appWith = (providers: { provide: symbol; useValue: unknown }[]) =>
    Test.createTestingModule({ providers: [...providers, { provide: APP_FILTER, useClass: ApiExceptionFilter }] }).compile();

  it('refuses to start without a denial recorder, rather than answer denials that no one records', async () => {
    await assert.rejects(appWith([{ provide: UNAVAILABILITY_CHECK, useValue: NEVER_UNAVAILABLE }]), /DENIAL_RECORDER/);
  });

  it('starts when the recorder and the unavailability check are provided', async () => {
    const app = await appWith([
      { provide: UNAVAILABILITY_CHECK, useValue: NEVER_UNAVAILABLE },
      { provide: DENIAL_RECORDER, useValue: NO_DENIALS },
    ]);
    await app.close();
  });
});
