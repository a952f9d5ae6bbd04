import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

/**
 * Runs dependency-cruiser with the project's rules on `src/` of `root`: once as `npm run lint` does, whose
 * exit status is what fails CI, and once for the JSON report that names each violation.
 */
function violationsIn(root: string): { status: number | null; violations: Violation[] } {
  const depcruise = (...options: string[]) => spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, ...options], { cwd: root, encoding: 'utf8' });
  const { status } = depcruise();
  const json = depcruise('--output-type', 'json');
  assert.ok(json.stdout.length > 0, `dependency-cruiser printed nothing: ${json.stderr}`);
  const report = JSON.parse(json.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return { status, violations: report.summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to })) };
}

describe('architecture rules (.dependency-cruiser.mjs)', () => {
  it('report each rule that the fixture breaks on purpose, and nothing it keeps', () => {
    const { status, violations } = violationsIn(join(ROOT, 'test', 'fixtures', 'architecture'));

    assert.notEqual(status, 0, 'a broken rule must fail npm run lint');
    const sorted = (list: Violation[]) => [...list].sort((a, b) => `${a.rule} ${a.from}`.localeCompare(`${b.rule} ${b.from}`));
    assert.deepEqual(
      sorted(violations),
      sorted([
        { rule: 'no-circular', from: 'src/circle/first.ts', to: 'src/circle/second.ts' },
        { rule: 'module-through-its-door', from: 'src/other/index.ts', to: 'src/feature/inside.ts' },
        { rule: 'wiring-through-the-door', from: 'src/main.ts', to: 'src/feature/inside.ts' },
        { rule: 'migrations-are-frozen', from: 'src/database/migrations/002-second.ts', to: 'src/feature/index.ts' },
        { rule: 'common-imports-nothing-from-src', from: 'src/common/index.ts', to: 'src/feature/index.ts' },
        { rule: 'http-imports-only-common', from: 'src/http/index.ts', to: 'src/feature/index.ts' },
        { rule: 'audit-rooms-through-their-doors', from: 'src/audit/api/index.ts', to: 'src/audit/trail/chain.ts' },
        { rule: 'audit-rooms-in-order', from: 'src/audit/write/index.ts', to: 'src/audit/api/index.ts' },
        { rule: 'audit-trail-stands-alone', from: 'src/audit/trail/index.ts', to: 'src/audit/write/index.ts' },
      ]),
    );
  });

  it('find no violation in src/', () => {
    const { status, violations } = violationsIn(ROOT);

    assert.deepEqual(violations, []);
    assert.equal(status, 0);
  });
});
