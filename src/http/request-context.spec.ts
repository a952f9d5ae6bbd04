import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NextFunction } from 'express';
import helmet from 'helmet';
import { headersSetBy } from './request-context';

describe('headersSetBy', () => {
  it("reads helmet's headers once, as helmet would set them on a response", () => {
    const headers = new Map(headersSetBy(helmet()));
    assert.equal(headers.get('x-content-type-options'), 'nosniff');
    assert.match(headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(headers.get('strict-transport-security') ?? '', /max-age=\d+/);
  });

  it('refuses a middleware that does not pass the request on, or fails it', () => {
    assert.throws(() => headersSetBy(() => undefined), /did not pass every request on/);
    assert.throws(() => headersSetBy((_req: unknown, _res: unknown, next: NextFunction) => next(new Error('no'))), /did not pass every request on/);
  });
});
