import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  appendLeaves,
  consistencyPlan,
  EMPTY_ROOT,
  frontierRoot,
  inclusionPlan,
  leafHash,
  nodeHash,
  type ProofPlan,
  rootPlan,
  type TreeNode,
  verifyConsistency,
} from './merkle';

const LEAVES = Array.from({ length: 40 }, (_, index) => leafHash(`event ${index}`));

/** RFC 9162 MTH straight from its definition. */
function mth(leaves: string[]): string {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** RFC 9162 PATH(m, D[n]) straight from its definition. */
function path(m: number, leaves: string[]): string[] {
  if (leaves.length <= 1) return [];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

/** The plan's hashes, reading each complete subtree from the leaves, and how many it read. */
function run(plan: ProofPlan): { hashes: string[]; reads: number } {
  const read = ({ level, index }: TreeNode) => {
    assert.notEqual(level, 1, 'a pair of leaves is not stored');
    return mth(LEAVES.slice(index * 2 ** level, (index + 1) * 2 ** level));
  };
  return { hashes: plan.hashes(read), reads: plan.nodes.length };
}

describe('the Merkle tree', () => {
  it('hashes leaves and nodes as RFC 9162 does: SHA-256 of 0x00 || leaf, and of 0x01 || left || right', () => {
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('base64');
    assert.equal(leafHash('aé'), sha(Buffer.from([0, 0x61, 0xc3, 0xa9])));
    const [l, r] = [LEAVES[0], LEAVES[1]];
    assert.equal(nodeHash(l, r), sha(Buffer.concat([Buffer.from([1]), Buffer.from(l, 'base64'), Buffer.from(r, 'base64')])));
    assert.equal(EMPTY_ROOT, sha(Buffer.alloc(0)));
  });

  it('keeps the root in its frontier, however the leaves are batched, and stores every complete subtree but pairs of leaves once', () => {
    let tree = { size: 0, hashes: [] as string[] };
    const nodes: string[] = [];
    for (const batch of [1, 2, 5, 1, 8, 23]) {
      const appended = appendLeaves(tree, LEAVES.slice(tree.size, tree.size + batch));
      nodes.push(...appended.nodes.map(({ level, index, hash }) => `${level}:${index}:${hash}`));
      tree = appended.frontier;
      assert.equal(frontierRoot(tree.hashes), mth(LEAVES.slice(0, tree.size)));
      assert.equal(tree.hashes.length, tree.size.toString(2).replaceAll('0', '').length);
    }
    // 40 leaves are complete subtrees of 32 and 8 leaves: 31 and 7 interior nodes, 16 and 4 of them pairs of leaves.
    assert.equal(nodes.length, 31 - 16 + 7 - 4);
    for (const entry of nodes) {
      const [level, index, hash] = entry.split(':');
      assert.equal(hash, mth(LEAVES.slice(Number(index) * 2 ** Number(level), (Number(index) + 1) * 2 ** Number(level))));
    }
  });

  it('builds the RFC 9162 inclusion path and root of every leaf in every tree, from O(log n) subtrees', () => {
    for (let size = 1; size <= LEAVES.length; size++) {
      assert.equal(run(rootPlan(size)).hashes[0], mth(LEAVES.slice(0, size)));
      for (let index = 0; index < size; index++) {
        const { hashes, reads } = run(inclusionPlan(index, size));
        assert.deepEqual(hashes, path(index, LEAVES.slice(0, size)), `${index} in ${size}`);
        assert.ok(reads <= 2 * Math.ceil(Math.log2(size)) + 1, `${reads} reads for ${size}`);
      }
    }
  });

  it('builds consistency proofs that verify, and refuses them against another root', () => {
    for (let second = 1; second <= LEAVES.length; second++) {
      for (let first = 1; first <= second; first++) {
        const { hashes } = run(consistencyPlan(first, second));
        const [firstRoot, secondRoot] = [mth(LEAVES.slice(0, first)), mth(LEAVES.slice(0, second))];
        assert.ok(verifyConsistency(first, second, firstRoot, secondRoot, hashes), `${first} to ${second}`);
        assert.equal(verifyConsistency(first, second, LEAVES[39], secondRoot, hashes), false);
        if (first < second) assert.equal(verifyConsistency(first, second, firstRoot, LEAVES[39], hashes), false);
      }
    }
    assert.equal(verifyConsistency(5, 4, mth(LEAVES.slice(0, 5)), mth(LEAVES.slice(0, 4)), []), false);
  });
});
