import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = join(__dirname, '..', '..');
const PRETEND_NODE = join(__dirname, 'support', 'pretend-node.js');
/** The Node a newcomer's machine may have as its default, which only runs npm. */
const MACHINE_NODE = '20.20.2';

/** npm's own script: npm sets npm_execpath for the scripts it runs, and PATH finds it otherwise. */
function npmCli(): string {
  return process.env.npm_execpath ?? realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
}

/**
 * `npm ci --dry-run` in a copy of what a clone holds for it, with npm believing it runs on Node 20:
 * npm checks every package's engines and runs the project's postinstall as a real install does, and
 * writes nothing.
 */
function installOnMachineNode(cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--require', PRETEND_NODE, npmCli(), 'ci', '--dry-run', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PRETEND_NODE_VERSION: MACHINE_NODE },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm ci on a machine whose Node only runs npm', () => {
  let cwd: string;
  before(() => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-install-'));
    mkdirSync(join(cwd, 'scripts'));
    for (const file of ['package.json', 'package-lock.json', join('scripts', 'install-notice.mjs')]) {
      copyFileSync(join(ROOT, file), join(cwd, file));
    }
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  it('warns about no engine of the project itself, and says once, in one line, which Node the scripts run on', () => {
    const { status, stdout, stderr } = installOnMachineNode(cwd);

    assert.equal(status, 0, stderr);
    assert.doesNotMatch(stderr, /package: 'fleet-registry@/, "the project's engines name the Node its code runs on, not the one that runs npm");
    const scriptsNode = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const notices = stdout.split('\n').filter((line) => line.startsWith('fleet-registry: '));
    assert.deepEqual(notices, [
      `fleet-registry: npm runs on Node ${MACHINE_NODE}, the npm scripts on the Node ${scriptsNode} this install brought (node_modules/.bin/node): an EBADENGINE warning about Node ${MACHINE_NODE} does not concern them`,
    ]);
  });

  it('says nothing when npm and the scripts run on the same Node, as in the image (npm ci --omit=dev)', () => {
    const result = spawnSync('node', [join(ROOT, 'scripts', 'install-notice.mjs')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, npm_config_user_agent: `npm/11.19.1 node/${process.version} linux x64 workspaces/false` },
    });
    assert.deepEqual({ status: result.status, stdout: result.stdout, stderr: result.stderr }, { status: 0, stdout: '', stderr: '' });
  });
});
