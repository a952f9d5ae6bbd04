import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyFingerprint, canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('orders the keys of every object, at any depth, and keeps the order of arrays', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [3, 1], c: null } }), '{"a":{"c":null,"d":[3,1]},"b":1}');
  });
});

describe('bodyFingerprint', () => {
  it('is the same for the same body whatever its key order, and differs for another body', () => {
    const body = { reason: 'Worn out', authorized_by: 'officer-9' };
    assert.equal(bodyFingerprint(body), bodyFingerprint({ authorized_by: 'officer-9', reason: 'Worn out' }));
    assert.notEqual(bodyFingerprint(body), bodyFingerprint({ ...body, reason: 'Lost' }));
    assert.match(bodyFingerprint(undefined), /^[0-9a-f]{64}$/);
    assert.equal(bodyFingerprint(undefined), bodyFingerprint(null));
  });
});
