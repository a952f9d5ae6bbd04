import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('keeps at most its capacity, forgetting the least recently used entry', () => {
    const sut = new LruCache<string, number>(2);
    sut.set('a', 1);
    sut.set('b', 2);
    assert.equal(sut.get('a'), 1);
    sut.set('c', 3);

    assert.equal(sut.size, 2);
    assert.equal(sut.get('b'), undefined);
    assert.equal(sut.get('a'), 1);
    assert.equal(sut.get('c'), 3);
  });

  it('replaces the value of a key set again, without growing', () => {
    const sut = new LruCache<string, number>(2);
    sut.set('a', 1);
    sut.set('a', 2);

    assert.equal(sut.size, 1);
    assert.equal(sut.get('a'), 2);
  });

  it('keeps the entries used since the last capacity of them were added, however many come after', () => {
    const sut = new LruCache<number, number>(10);
    for (let key = 0; key < 10; key++) {
      sut.set(key, key);
    }
    for (let key = 10; key < 100; key++) {
      sut.get(0);
      sut.set(key, key);
    }

    assert.equal(sut.get(0), 0);
    assert.equal(sut.get(1), undefined);
    assert.ok(sut.size <= 10);
  });
});
