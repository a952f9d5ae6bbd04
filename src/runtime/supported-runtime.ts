/**
 * The oldest Node the code runs on, the lowest release `engines` in package.json names (a spec checks that
 * they agree). Only a floor: a Node older than that is known not to run it (better-sqlite3 13 crashes
 * Node 20 with a segmentation fault), a newer one than CI tests is likely to.
 */
export const OLDEST_SUPPORTED_NODE = '24.11.0';

function parts(version: string): number[] {
  return version.replace(/^v/, '').split('.').map(Number);
}

function isOlder(version: string, than: string): boolean {
  const [a, b] = [parts(version), parts(than)];
  const differing = a.findIndex((part, index) => part !== b[index]);
  return differing !== -1 && a[differing] < b[differing];
}

/** Why `version` cannot run the service, in one line that says what to do; undefined when it can. */
export function unsupportedRuntime(version: string, execPath: string): string | undefined {
  if (!isOlder(version, OLDEST_SUPPORTED_NODE)) {
    return undefined;
  }
  return (
    `fleet-registry needs Node ${OLDEST_SUPPORTED_NODE} or later, and ${execPath} is Node ${version}: ` +
    'run it through npm (npm ci once, then npm start or npm run <command>), which brings its own Node 26, ' +
    'or put Node 24 or 26 first on PATH'
  );
}
