import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestException, GatewayTimeoutException, HttpException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { ResourceNotFoundError, UnauthenticatedError } from '../errors/api-error';
import { ApiExceptionFilter } from './api-exception.filter';

/** A stand-in for an Express response that keeps what the filter sends. */
function captureResponse() {
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
  return { host: new ExecutionContextHost([{}, response]), sent };
}

describe('ApiExceptionFilter', () => {
  const unavailable = (error: unknown) => error instanceof Error && error.message === 'db down';

  it('sends an ApiError as the spec body with its status and headers', () => {
    const sut = new ApiExceptionFilter();
    const { host, sent } = captureResponse();
    sut.catch(new UnauthenticatedError('A bearer token is required'), host);
    assert.equal(sent.status, 401);
    assert.deepEqual(sent.body, { status: 'error', message: 'A bearer token is required', error_code: 'UNAUTHENTICATED' });
    assert.equal(sent.headers['WWW-Authenticate'], 'Bearer');
  });

  it('gives an unknown route NOT_FOUND without echoing the path', () => {
    const sut = new ApiExceptionFilter();
    const { host, sent } = captureResponse();
    sut.catch(new NotFoundException('Cannot GET /secret/path'), host);
    assert.deepEqual(sent.body, { status: 'error', message: 'Route not found', error_code: 'NOT_FOUND' });
  });

  it("maps Nest's own 4xx exceptions to a stable code by status", () => {
    const sut = new ApiExceptionFilter();
    const { host, sent } = captureResponse();
    sut.catch(new BadRequestException('bad'), host);
    assert.equal(sent.status, 400);
    assert.equal((sent.body as { error_code: string }).error_code, 'VALIDATION_ERROR');
  });

  it('answers an unexpected error with a generic 500 that reveals nothing of it', () => {
    const sut = new ApiExceptionFilter(unavailable);
    const { host, sent } = captureResponse();
    sut.catch(new Error('SELECT * FROM vessels failed at /srv/app.js:10'), host);
    assert.equal(sent.status, 500);
    assert.deepEqual(sent.body, { status: 'error', message: 'Internal server error', error_code: 'INTERNAL_ERROR' });
  });

  it("keeps the status of Nest's own 5xx exceptions, with a stable code and none of their message", () => {
    const cases = [
      [new ServiceUnavailableException('pool drained at db.internal'), 503, 'SERVICE_UNAVAILABLE'],
      [new GatewayTimeoutException('upstream 10.0.0.7 timed out'), 504, 'GATEWAY_TIMEOUT'],
      [new HttpException('teapot on fire', 507), 507, 'INTERNAL_ERROR'],
    ] as const;
    for (const [exception, status, code] of cases) {
      const sut = new ApiExceptionFilter();
      const { host, sent } = captureResponse();
      sut.catch(exception, host);
      assert.equal(sent.status, status);
      assert.equal((sent.body as { error_code: string }).error_code, code);
      assert.doesNotMatch((sent.body as { message: string }).message, /db\.internal|10\.0\.0\.7|teapot/);
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE when the unavailability check recognises the error', () => {
    const sut = new ApiExceptionFilter(unavailable);
    const { host, sent } = captureResponse();
    sut.catch(new Error('db down'), host);
    assert.equal(sent.status, 503);
    assert.deepEqual(sent.body, {
      status: 'error',
      message: 'The service is temporarily unavailable',
      error_code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('lets an ApiError through unchanged even when the check would match it', () => {
    const sut = new ApiExceptionFilter(() => true);
    const { host, sent } = captureResponse();
    sut.catch(new ResourceNotFoundError('ASSET_NOT_FOUND', 'Asset TIE-0001 not found'), host);
    assert.equal(sent.status, 404);
  });
});
