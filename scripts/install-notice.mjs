// Run by npm after `npm ci` or `npm install`. npm checks every package's `engines` against the Node that
// runs npm, while the scripts run on the Node the `node` devDependency installed: say so once, in one
// line, when the two differ, so that EBADENGINE warnings naming the machine's Node are read for what
// they are. Plain Node of any version: this runs before anything is built.
import process from 'node:process';

// "npm/11.19.1 node/v20.20.2 linux x64 workspaces/false"
const npmNode = /\bnode\/v(\S+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
const scriptsNode = process.versions.node;

if (npmNode !== undefined && npmNode !== scriptsNode) {
  process.stdout.write(
    `fleet-registry: npm runs on Node ${npmNode}, the npm scripts on the Node ${scriptsNode} this install brought (node_modules/.bin/node): an EBADENGINE warning about Node ${npmNode} does not concern them\n`,
  );
}
