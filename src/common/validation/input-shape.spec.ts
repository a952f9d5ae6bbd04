import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeUnsafeShape, MAX_INPUT_DEPTH } from './input-shape';

const nested = (depth: number): unknown => Array.from({ length: depth }).reduce<unknown>((inner) => ({ a: inner }), 1);

describe('describeUnsafeShape', () => {
  it('passes flat and moderately nested input, and values that are not objects', () => {
    for (const input of [{ reason: 'r', authorized_by: 'a' }, { limit: ['1', '2'] }, nested(MAX_INPUT_DEPTH), undefined, null, 'text', 42]) {
      assert.equal(describeUnsafeShape(input), null);
    }
  });

  it('names a key that shadows an Object.prototype member, or prototype, with its path', () => {
    assert.equal(describeUnsafeShape(JSON.parse('{"__proto__":{"x":1}}')), '__proto__ is not an allowed field');
    assert.equal(describeUnsafeShape({ reason: { constructor: 1 } }), 'reason.constructor is not an allowed field');
    assert.equal(describeUnsafeShape({ a: [{ prototype: 1 }] }), 'a.0.prototype is not an allowed field');
    assert.equal(describeUnsafeShape(Object.assign(Object.create(null) as object, { hasOwnProperty: '1' })), 'hasOwnProperty is not an allowed field');
  });

  it('refuses nesting deeper than the limit, without recursion even 100,000 levels deep', () => {
    assert.equal(describeUnsafeShape(nested(MAX_INPUT_DEPTH + 1)), `input nests deeper than ${MAX_INPUT_DEPTH} levels`);
    assert.equal(describeUnsafeShape(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)), `input nests deeper than ${MAX_INPUT_DEPTH} levels`);
  });
});
