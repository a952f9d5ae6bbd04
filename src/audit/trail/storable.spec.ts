import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { TEXT_CHARACTERS } from '../../common';
import { storable } from './storable';

describe('storable', () => {
  it('keeps ordinary text as it is', () => {
    assert.equal(storable('/v1/assets/TIE-0001', 64), '/v1/assets/TIE-0001');
  });

  it('escapes NUL and the other control characters visibly', () => {
    assert.equal(storable('/v1/assets/\u0000\n\u007f\u009b', 64), '/v1/assets/\\u0000\\u000a\\u007f\\u009b');
  });

  it('replaces unpaired surrogates with U+FFFD and keeps real pairs', () => {
    assert.equal(storable('a\ud800b\udc00c\ud83d\ude80', 64), 'a\ufffdb\ufffdc\ud83d\ude80');
  });

  it('cuts a long value to the limit and says how much it dropped', () => {
    const sut = storable('x'.repeat(15_000), 1024);

    assert.ok(sut.length <= 1024, `length ${sut.length}`);
    assert.match(sut, /^x{1000}…\[\+14000 chars\]$/);
  });

  it('does not leave half a surrogate pair where it cuts', () => {
    const sut = storable(`${'x'.repeat(39)}${'\ud83d\ude80'.repeat(40)}`, 64);

    assert.doesNotMatch(sut, /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.ok(sut.length <= 64);
  });

  it('stores only what the OpenAPI document promises of an audit field: text without control characters or unpaired surrogates', () => {
    // Any UTF-16 code units, lone surrogates and control characters included, of any length around the limit.
    const anyCodeUnits = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 80 }).map((units) => String.fromCharCode(...units));
    fc.assert(fc.property(anyCodeUnits, (value) => TEXT_CHARACTERS.test(storable(value, 64))));
  });
});
