// `npm start` and the commands build only when dist/ is missing or older than what it is built from,
// so a command answers in about a second instead of waiting for a full build every time.
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const BUILT = 'dist/main.js';
const SOURCES = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];

/** A directory's own time changes when a file is added or deleted, so a deletion counts too. */
function newestChange(path) {
  const stat = statSync(path);
  return stat.isDirectory() ? Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name)))) : stat.mtimeMs;
}

function builtAt() {
  try {
    return statSync(BUILT).mtimeMs;
  } catch {
    return -Infinity;
  }
}

if (Math.max(...SOURCES.map(newestChange)) > builtAt()) {
  process.stderr.write('dist/ is missing or older than src/: building\n');
  try {
    execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
  } catch {
    // A failed build may still have written dist/main.js: remove it, so the next run builds again.
    rmSync(BUILT, { force: true });
    process.exit(1);
  }
}
