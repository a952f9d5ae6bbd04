import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = join(__dirname, '..', '..');
const PRETEND_NODE = join(__dirname, 'support', 'pretend-node.js');
/** The Node a newcomer's machine may have as its default, which only runs npm. */
const MACHINE_NODE = '20.20.2';

/** npm's own script: npm sets npm_execpath for the scripts it runs, and PATH finds it otherwise. */
function npmCli(): string {
  return process.env.npm_execpath ?? realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
}

/** The README's install: the quick start's first command, up to its `&&`. */
function readmeInstall(): string[] {
  const quickStart = /## Quick start\s+```bash\n([^\n]+)/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert.ok(quickStart, 'the README has a quick start');
  return quickStart[1].split('&&')[0].trim().split(/\s+/);
}

/** The major version of the Node the `node` devDependency brings, which the npm scripts run on. */
function scriptsNodeMajor(): string {
  const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const major = /^\^(\d+)\./.exec(devDependencies.node)?.[1];
  assert.ok(major, `a caret range for the node devDependency: ${devDependencies.node}`);
  return major;
}

/**
 * `command` (npm or npx, and its arguments) in a copy of what a clone holds for an install, launched
 * by a Node that believes it is Node 20, as on a newcomer's machine, with `--dry-run`: npm checks every
 * package's engines and runs the project's postinstall as a real install does, and writes nothing. The
 * environment is the machine's, without the npm_* variables of the npm that runs this test.
 */
function runOnMachineNode(cwd: string, [command, ...args]: string[]): { status: number | null; output: string } {
  assert.ok(command === 'npm' || command === 'npx', `an npm or npx command: ${command}`);
  const cli = join(dirname(npmCli()), `${command}-cli.js`);
  const machine = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const result = spawnSync(process.execPath, ['--require', PRETEND_NODE, cli, ...args, '--dry-run', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    env: { ...machine, PRETEND_NODE_VERSION: MACHINE_NODE },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** What the postinstall prints when npm ran on the Node at `npmNode` (npm's npm_node_execpath). */
function noticeWith(npmNode: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('node', [join(ROOT, 'scripts', 'install-notice.mjs')], { encoding: 'utf8', env: { PATH: process.env.PATH, npm_node_execpath: npmNode } });
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

  it("installs as the README says in a few lines, with no EBADENGINE warning: npm itself runs on the scripts' Node", () => {
    const install = readmeInstall();
    assert.ok(install.includes(`node@${scriptsNodeMajor()}`), `the README installs on the Node the node devDependency brings: ${install.join(' ')}`);

    const { status, output } = runOnMachineNode(cwd, install);

    assert.equal(status, 0, output);
    assert.doesNotMatch(output, /EBADENGINE/, output);
    // A dry run lists each package it would add, where a real install says "added 768 packages" once.
    const lines = output.split('\n').filter((line) => line.trim() !== '' && !/^add \S+ \S+$/.test(line));
    assert.ok(lines.length <= 6, `a few lines, not ${lines.length}:\n${lines.join('\n')}`);
  });

  it("warns plain npm ci on Node 20 about the dependencies' engines, none about the project's own", () => {
    const { status, output } = runOnMachineNode(cwd, ['npm', 'ci']);

    assert.equal(status, 0, output);
    assert.match(output, /EBADENGINE/, "npm on Node 20 checks the dependencies' engines");
    assert.doesNotMatch(output, /package: 'fleet-registry@/, "the project's engines name the Node its code runs on, not the one that runs npm");
  });

  it('says once, in one line, when npm ran on another Node than the scripts, and what installs without the warnings', () => {
    const npmNode = join(cwd, 'node-20');
    writeFileSync(npmNode, `#!/bin/sh\necho ${MACHINE_NODE}\n`);
    chmodSync(npmNode, 0o755);
    const scriptsNode = execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();

    const { status, stdout, stderr } = noticeWith(npmNode);

    assert.equal(status, 0, stderr);
    assert.deepEqual(stdout.split('\n').filter(Boolean), [
      `fleet-registry: npm ran on Node ${MACHINE_NODE}, the npm scripts run on the Node ${scriptsNode} this install brought (node_modules/.bin/node): ` +
        `the EBADENGINE warnings about Node ${MACHINE_NODE} do not concern them (npx -y -p node@${scriptsNode.split('.')[0]} npm ci installs without them)`,
    ]);
  });

  it('says nothing when npm and the scripts run on the same Node, as in the image (npm ci --omit=dev)', () => {
    const sameNode = execFileSync('node', ['-p', 'process.execPath'], { encoding: 'utf8' }).trim();
    assert.deepEqual(noticeWith(sameNode), { status: 0, stdout: '', stderr: '' });
  });
});
