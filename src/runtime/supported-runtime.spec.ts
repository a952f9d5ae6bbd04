import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OLDEST_SUPPORTED_NODE, unsupportedRuntime } from './supported-runtime';

describe('unsupportedRuntime', () => {
  it('refuses a Node older than 24.11 in one line naming the binary, its version and what to do', () => {
    for (const version of ['20.20.2', '22.22.0', '24.10.0']) {
      const problem = unsupportedRuntime(version, '/usr/bin/node');
      assert.ok(problem !== undefined, version);
      assert.doesNotMatch(problem, /\n/);
      assert.ok(problem.includes(`/usr/bin/node is Node ${version}`), problem);
      assert.match(problem, /npm ci once, then npm start or npm run <command>/);
    }
  });

  it('accepts Node 24.11 and later, newer majors than the tested ones included', () => {
    for (const version of ['24.11.0', '24.21.0', '26.0.0', '26.10.0', '27.0.0']) {
      assert.equal(unsupportedRuntime(version, '/usr/bin/node'), undefined, version);
    }
  });

  it("starts where the lowest release of package.json's engines does", () => {
    const { engines } = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } };
    const releases = engines.node.split('||').map((range) => range.trim().replace(/^\^/, ''));
    const lowest = releases.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))[0];
    assert.equal(OLDEST_SUPPORTED_NODE, lowest);
  });
});
