// Preloaded with `node --require` by test/supported-runtime.e2e-spec.ts: the process reports the Node
// version PRETEND_NODE_VERSION names, and says at exit whether better-sqlite3 was loaded.
const pretended = process.env.PRETEND_NODE_VERSION;
if (pretended !== undefined) {
  Object.defineProperty(process.versions, 'node', { value: pretended });
  Object.defineProperty(process, 'version', { value: `v${pretended}` });
}
process.on('exit', () => {
  if (Object.keys(require.cache).some((file) => file.includes('/node_modules/better-sqlite3/'))) {
    process.stderr.write('better-sqlite3 was loaded\n');
  }
});
