import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runScript } from './support/processes';

const CHURN = join(__dirname, 'support', 'statement-churn.js');

describe('better-sqlite3 under garbage collection, on this Node', () => {
  let folder: string;
  before(() => (folder = mkdtempSync(join(tmpdir(), 'fleet-registry-churn-'))));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it("survives statements and databases dropped in five threads, collected by V8's own tasks and by forced gc(), and exits normally", async () => {
    const result = await runScript(CHURN, [folder], { cwd: folder, nodeOptions: ['--expose-gc'], timeout: 120_000 });

    assert.doesNotMatch(result.stderr, /Assertion failed/);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^prepared \d+ statements in 500 databases, \d+ left to the exit\n$/);
  });
});
