import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ifMatchIncludes, ifNoneMatchIncludes, strongEntityTag } from './entity-tags';

describe('strongEntityTag', () => {
  it('is a quoted tag without W/, the same for the same parts and different for others', () => {
    const tag = strongEntityTag(7, 'Outer Rim', 10);
    assert.match(tag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal(strongEntityTag(7, 'Outer Rim', 10), tag);
    assert.notEqual(strongEntityTag(8, 'Outer Rim', 10), tag);
    assert.notEqual(strongEntityTag(7, 'Mid Rim', 10), tag);
  });
});

describe('ifNoneMatchIncludes', () => {
  const etag = '"abc"';

  it('matches the same tag, and its weak form, since If-None-Match compares weakly', () => {
    assert.equal(ifNoneMatchIncludes('"abc"', etag), true);
    assert.equal(ifNoneMatchIncludes('W/"abc"', etag), true);
  });

  it('matches any tag of a comma list, with or without spaces', () => {
    assert.equal(ifNoneMatchIncludes('"x", "abc"', etag), true);
    assert.equal(ifNoneMatchIncludes('"x",W/"abc" ,"y"', etag), true);
  });

  it('reads commas inside a quoted tag as part of it', () => {
    assert.equal(ifNoneMatchIncludes('"x,abc"', etag), false);
    assert.equal(ifNoneMatchIncludes('"x,abc", "abc"', etag), true);
  });

  it('matches * whatever the current tag', () => {
    assert.equal(ifNoneMatchIncludes('*', etag), true);
    assert.equal(ifNoneMatchIncludes(' * ', etag), true);
  });

  it('matches nothing for another tag, an unquoted one, an empty field or none', () => {
    for (const field of ['"abcd"', '"ab"', 'abc', 'W/abc', '', undefined]) {
      assert.equal(ifNoneMatchIncludes(field, etag), false, String(field));
    }
  });
});

describe('ifMatchIncludes', () => {
  const etag = '"abc"';

  it('matches *, the same tag, or a list that holds it', () => {
    assert.equal(ifMatchIncludes('*', etag), true);
    assert.equal(ifMatchIncludes('"abc"', etag), true);
    assert.equal(ifMatchIncludes('"xyz", "abc"', etag), true);
  });

  it('compares strongly: a weak tag, another tag or a field that lists nothing readable matches nothing', () => {
    assert.equal(ifMatchIncludes('W/"abc"', etag), false);
    assert.equal(ifMatchIncludes('"xyz"', etag), false);
    assert.equal(ifMatchIncludes('abc', etag), false);
    assert.equal(ifMatchIncludes('', etag), false);
  });
});
