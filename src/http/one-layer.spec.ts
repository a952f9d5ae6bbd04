import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NextFunction, Request, Response } from 'express';
import { inOneLayer } from './one-layer';

const req = {} as Request;
const res = {} as Response;

describe('inOneLayer', () => {
  it('runs the middlewares in order, then passes on', () => {
    const ran: string[] = [];
    const mark = (name: string) => (_req: Request, _res: Response, next: NextFunction) => {
      ran.push(name);
      next();
    };
    let passed: unknown[] | undefined;
    inOneLayer(mark('a'), mark('b'), mark('c'))(req, res, (...args: unknown[]) => (passed = args));
    assert.deepEqual(ran, ['a', 'b', 'c']);
    assert.deepEqual(passed, [undefined]);
  });

  it('waits for a middleware that calls next later', async () => {
    const ran: string[] = [];
    const later = (_req: Request, _res: Response, next: NextFunction) => void setImmediate(() => next());
    const passed = new Promise((resolve) => inOneLayer(later, (_req, _res, next) => (ran.push('after'), next()))(req, res, resolve));
    assert.deepEqual(ran, []);
    await passed;
    assert.deepEqual(ran, ['after']);
  });

  it('skips the rest on an error and hands it on', () => {
    const failure = new Error('bad');
    let skipped = true;
    let passed: unknown;
    inOneLayer(
      (_req, _res, next) => next(failure),
      () => (skipped = false),
    )(req, res, (error?: unknown) => (passed = error));
    assert.equal(passed, failure);
    assert.equal(skipped, true);
  });

  it('ends with a middleware that answers without calling next', () => {
    let passedOn = false;
    let reached = false;
    inOneLayer(
      () => undefined,
      () => (reached = true),
    )(req, res, () => (passedOn = true));
    assert.equal(reached, false);
    assert.equal(passedOn, false);
  });
});
