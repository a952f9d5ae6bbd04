import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browsableUrl } from './listen';

describe('browsableUrl', () => {
  it('names localhost for a server on every address, IPv4 or IPv6', () => {
    assert.equal(browsableUrl('http://0.0.0.0:3000'), 'http://localhost:3000');
    assert.equal(browsableUrl('http://[::]:8080'), 'http://localhost:8080');
  });

  it('keeps an address of its own', () => {
    for (const url of ['http://127.0.0.1:3000', 'http://[::1]:3000', 'http://10.0.0.5:3000', 'http://[fe80::1]:3000']) {
      assert.equal(browsableUrl(url), url);
    }
  });
});
