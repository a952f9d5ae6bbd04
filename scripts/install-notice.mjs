// Run by npm after `npm ci` or `npm install`. npm checks every package's `engines` against the Node that
// runs npm, while the scripts run on the Node the `node` devDependency installed: say so once, in one
// line, when the two differ, so that EBADENGINE warnings naming the machine's Node are read for what
// they are. Plain Node of any version: this runs before anything is built.
import { execFileSync } from 'node:child_process';
import process from 'node:process';

// npm sets npm_node_execpath to the Node running it, in every script. Its user agent (node/v20.20.2 ...)
// would not do: an npm started by another one, as `npx -p node@26 npm ci` starts it, inherits the first's.
const npmNodePath = process.env.npm_node_execpath;
const scriptsNode = process.versions.node;
const npmNode =
  npmNodePath === undefined || npmNodePath === process.execPath ? scriptsNode : execFileSync(npmNodePath, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();

if (npmNode !== scriptsNode) {
  const scriptsMajor = scriptsNode.split('.')[0];
  process.stdout.write(
    `fleet-registry: npm ran on Node ${npmNode}, the npm scripts run on the Node ${scriptsNode} this install brought (node_modules/.bin/node): ` +
      `the EBADENGINE warnings about Node ${npmNode} do not concern them (npx -y -p node@${scriptsMajor} npm ci installs without them)\n`,
  );
}
