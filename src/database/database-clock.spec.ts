import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBeyond, readingOf } from './database-clock';

describe('comparing the clock with the database', () => {
  it("compares the database's reading with the middle of the round trip", () => {
    assert.deepEqual(readingOf(1_000, 1_050, 100), { skewMs: 0, uncertaintyMs: 50 });
    assert.deepEqual(readingOf(1_000, 7_010, 20), { skewMs: 6_000, uncertaintyMs: 10 });
  });

  it('is out of bounds only when the skew is beyond the bound whatever the round trip hid', () => {
    assert.equal(isBeyond({ skewMs: 6_000, uncertaintyMs: 10 }, 5_000), true);
    assert.equal(isBeyond({ skewMs: -6_000, uncertaintyMs: 10 }, 5_000), true, 'an instance ahead as much as one behind');
    assert.equal(isBeyond({ skewMs: 6_000, uncertaintyMs: 1_500 }, 5_000), false, 'a slow round trip alone is no skew');
    assert.equal(isBeyond({ skewMs: 4_000, uncertaintyMs: 0 }, 5_000), false);
  });
});
