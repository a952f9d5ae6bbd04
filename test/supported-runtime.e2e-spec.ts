import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runScript, SCRIPTS } from './support/processes';

const PRETEND_NODE = join(__dirname, 'support', 'pretend-node.js');

describe('entry points on a Node too old for the code', () => {
  let cwd: string;
  before(() => (cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-runtime-'))));
  after(() => rmSync(cwd, { recursive: true, force: true }));

  for (const [name, script] of Object.entries(SCRIPTS)) {
    it(`${name} exits with one line that says what to do, before better-sqlite3 is loaded`, async () => {
      const result = await runScript(script, ['--help'], { cwd, env: { PRETEND_NODE_VERSION: '20.20.2' }, nodeOptions: ['--require', PRETEND_NODE] });

      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^fleet-registry needs Node 24\.11\.0 or later, and \S+ is Node 20\.20\.2: run it through npm [^\n]*\n$/);
    });
  }

  it('db:migrate on this Node does load better-sqlite3: the check is what stops them before it', async () => {
    const result = await runScript(SCRIPTS.migrate, [], { cwd, env: { DATABASE_URL: `sqlite:${join(cwd, 'check.sqlite')}` }, nodeOptions: ['--require', PRETEND_NODE] });

    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /better-sqlite3 was loaded/);
  });
});
