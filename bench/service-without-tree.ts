import * as merkle from '../src/audit/trail/merkle';
import { AuditWriteRepository } from '../src/audit/write/audit-write.repository';
import { AuditTree } from '../src/audit/trail/audit-tree';

/*
 * The yardstick of `npm run bench:audit-tree`: the service as it is, with the Merkle tree's work taken
 * out of every append (an empty leaf hash, no interior node hashed or stored, the frontier left as it
 * was: on SQLite no work at the commit group's end) and no checkpoint signed. Everything else, the hash
 * chain included, runs unchanged. Its trail does not verify: it is a yardstick, never a service.
 */
Object.assign(merkle, {
  leafHash: () => '',
  appendLeaves: (frontier: merkle.Frontier) => ({ frontier, nodes: [] }),
});
AuditWriteRepository.prototype.endGroup = () => Promise.resolve();
AuditTree.prototype.signIfGrown = () => Promise.resolve();

// Loaded after the changes above, so the service's modules find them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('../src/main');
