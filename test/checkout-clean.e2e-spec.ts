import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type RunningServer, startServer } from './support/processes';

const ROOT = join(__dirname, '..', '..');
const COMPILED_CLI = join(__dirname, '..', 'src', 'cli');

/** The README's fenced shell block that runs `npm run ... audit:witness`, line by line. */
function witnessWalkThrough(): string[] {
  const blocks = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)].map(([, body]) => body);
  const block = blocks.find((body) => body.includes('audit:witness'));
  assert.ok(block, 'the README walks through a witness');
  return block.split('\n').filter((line) => line.trim() !== '');
}

/**
 * `npm run -s <script> -- <args>` as the README types it, run as the compiled command that script runs
 * (its `node dist/cli/<name>.js` in package.json), beside these tests.
 */
function npmFunction(): string {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const cases = Object.entries(scripts).flatMap(([name, command]) => {
    const file = /node dist\/cli\/([\w-]+\.js)$/.exec(command)?.[1];
    return file === undefined ? [] : [`${name}) file=${join(COMPILED_CLI, file)};;`];
  });
  return `npm() { [ "$1 $2" = "run -s" ] || return 99; script=$3; shift 3; [ "$1" = -- ] && shift; case $script in ${cases.join(' ')} *) return 98;; esac; "$NODE" "$file" "$@"; }`;
}

/** git with the repository's own rules only: no global excludes file that could hide what it would offer. */
function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

/** A checkout's view: a repository holding only the project's .gitignore. */
const gitStatus = (cwd: string) => git(cwd, ['status', '--porcelain', '--untracked-files=all']);

describe('what the walk-through and the service write stays out of a checkout', () => {
  let cwd: string;
  let server: RunningServer | undefined;

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-checkout-'));
    git(cwd, ['init', '-q']);
    copyFileSync(join(ROOT, '.gitignore'), join(cwd, '.gitignore'));
    git(cwd, ['add', '.gitignore']);
    git(cwd, ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'checkout']);
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  it("the README's first start and its witness commands leave git status clean: the token and the state are not offered for a commit", async () => {
    server = await startServer({ cwd });
    // --watch witnesses again every minute until stopped; the runs before it write what it would.
    const lines = witnessWalkThrough().filter((line) => !line.includes('--watch'));
    const script = [npmFunction(), 'set -e', ...lines].join('\n');
    execFileSync('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH, NODE_ENV: 'test', NODE: process.execPath, BASE: server.url }, stdio: ['ignore', 'pipe', 'pipe'] });

    assert.equal(gitStatus(cwd), '');
  });

  it('keeps the audit signing key generated beside a SQLite database outside data/ ignored', async () => {
    server = await startServer({ cwd, env: { DATABASE_URL: 'sqlite:registry.sqlite' } });
    const key = 'registry.sqlite.audit-signing-key.pem';
    assert.ok(existsSync(join(cwd, key)), 'the service generated its signing key beside the database');
    assert.doesNotMatch(gitStatus(cwd), /audit-signing-key/);
  });
});
