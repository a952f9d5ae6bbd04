// The first import of every entry point (src/main.ts, src/cli/*.ts): on a Node too old for the code it
// exits with one line that says what to do, before any other module is loaded, better-sqlite3's
// native binding among them.
import { unsupportedRuntime } from './supported-runtime';

const problem = unsupportedRuntime(process.versions.node, process.execPath);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
