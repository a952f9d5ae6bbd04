import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
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

async function assertPortFree(port: number): Promise<void> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  server.close();
}

describe('npm scripts', () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-npm-'));
    // Builds dist/ when it is stale, as npm start would, so the timings below see a built tree.
    assert.equal(spawnSync('node', ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // start:dev compiles all of src/ before it serves (nest start --watch), which a loaded machine takes long over.
  for (const [script, startupMs] of [['start', 60_000], ['start:prod', 60_000], ['start:dev', 180_000]] as const) {
    it(`npm run ${script}: kill -TERM on the npm pid stops the server, no orphan left, the port free`, async () => {
      const port = await freePort();
      const env = { PATH: process.env.PATH, NODE_ENV: 'test', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, `${script}.sqlite`)}`, JWT_SECRET: 'npm-scripts-test-secret-of-32-characters' };
      // A process group of its own, so that whatever a failed run leaves behind can be killed with it.
      const npm = spawn('npm', ['run', '-s', script], { cwd: ROOT, env, detached: true });
      try {
        let output = '';
        npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const deadline = Date.now() + startupMs;
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
        await assertPortFree(port);
      } finally {
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          // nothing of the group is left, as it should be
        }
      }
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

  it('npm run token without -- before its options: one line saying to add it, exit code 2', () => {
    const result = spawnSync('npm', ['run', '-s', 'token', '--sub', 'x', '--clearance', '7'], { cwd: ROOT, encoding: 'utf8' });
    assert.deepEqual(
      { status: result.status, stdout: result.stdout, stderr: result.stderr },
      { status: 2, stdout: '', stderr: 'npm took --sub and --clearance for itself: put -- before the options, as in npm run token -- --sub ...\n' },
    );
  });
});
