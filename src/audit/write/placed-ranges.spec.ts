import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodePlaced, encodePlaced } from './placed-ranges';

describe('encodePlaced and decodePlaced', () => {
  it('writes runs of consecutive places as ranges, in order, and reads them back', () => {
    const message = encodePlaced([47, 3, 1, 2, 45, 48, 49]);
    assert.equal(message, '1-3,45,47-49');
    assert.deepEqual(decodePlaced(message), [1, 2, 3, 45, 47, 48, 49]);
  });

  it("sends '' for a list too long for a notification, which names no place", () => {
    const scattered = Array.from({ length: 2_000 }, (_, index) => 1_000_000 + index * 2);
    assert.equal(encodePlaced(scattered), '');
    assert.deepEqual(decodePlaced(''), []);
  });
});
