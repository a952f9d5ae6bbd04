import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './support/processes';

const ROOT = join(__dirname, '..', '..');

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm scripts', () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-npm-'));
    // Builds dist/ when it is stale, as npm start would, so the timings below see a built tree.
    assert.equal(spawnSync('node', ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const script of ['start', 'start:prod']) {
    it(`npm run ${script}: kill -TERM on the npm pid stops the server, no orphan left`, async () => {
      const port = await freePort();
      const env = { PATH: process.env.PATH, NODE_ENV: 'test', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, `${script}.sqlite`)}`, JWT_SECRET: 'npm-scripts-test-secret-of-32-characters' };
      const npm = spawn('npm', ['run', '-s', script], { cwd: ROOT, env });
      let output = '';
      npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 60_000;
      while (!/listening on/.test(output)) {
        assert.ok(Date.now() < deadline && npm.exitCode === null, `the server did not start:\n${output}`);
        await sleep(100);
      }
      const serverPid = Number(/"pid":(\d+)/.exec(output)?.[1]);
      assert.notEqual(serverPid, npm.pid, 'node runs in a process of its own');
      npm.kill('SIGTERM');
      await once(npm, 'exit');
      for (let waited = 0; isRunning(serverPid) && waited < 10_000; waited += 100) {
        await sleep(100);
      }
      assert.equal(isRunning(serverPid), false, `node dist/main.js (pid ${serverPid}) outlived npm`);
      assert.match(output, /SIGTERM received[\s\S]*exiting with code 0/);
    });
  }

  it('npm run token does not rebuild an up-to-date dist/', () => {
    const started = Date.now();
    const result = spawnSync('npm', ['run', '-s', 'token', '--', '--help'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(result.status, 0);
    assert.match(result.stdout, /^usage: npm run token/);
    assert.doesNotMatch(result.stderr, /building/);
    assert.ok(Date.now() - started < 15_000);
  });
});
