import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const README = readFileSync(join(resolve(__dirname, '..', '..'), 'README.md'), 'utf8');

/** The README's code blocks, where a newcomer copies from. */
const code = [...README.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map(([, block]) => block).join('\n');

describe("README.md: the examples' officers", () => {
  it('names in every authorized_by an officer whose token it issues: a sub, which the two-person rule needs', () => {
    const subs = new Set([...code.matchAll(/npm run -s token -- --sub (\S+)/g)].map(([, sub]) => sub));
    const named = [...code.matchAll(/"?authorized_by"?: ["']([^"']*)["']/g)].map(([, officer]) => officer);
    assert.ok(named.length >= 3, `the decommission examples: ${named.join(', ')}`);
    assert.deepEqual(named.filter((officer) => !subs.has(officer)), [], `subs issued: ${[...subs].join(', ')}`);
  });
});
