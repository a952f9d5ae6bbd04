import { hash } from 'node:crypto';

/**
 * The RFC 9162 (RFC 6962) Merkle tree over the events, leaf i being the event at position i + 1. Hashes
 * are raw SHA-256 digests, kept and shown in standard base64.
 */

/** A complete subtree: `2^level` leaves starting at leaf `index * 2^level`. Level 0 is a leaf. */
export interface TreeNode {
  level: number;
  index: number;
}

/** A complete subtree with its hash, as stored. */
export interface StoredNode extends TreeNode {
  hash: string;
}

/** The leaf's bytes are its text in UTF-8, after the 0x00 that marks a leaf (itself U+0000 in UTF-8). */
export function leafHash(leaf: string): string {
  return hash('sha256', `\0${leaf}`, 'base64');
}

/**
 * 0x01 and the two children's digests, decoded in place: a node hashed makes no buffer and no Hash
 * object to collect, which the one-shot digest spares too.
 */
const nodeBytes = Buffer.from([1, ...new Array<number>(64).fill(0)]);

export function nodeHash(left: string, right: string): string {
  nodeBytes.write(left, 1, 'base64');
  nodeBytes.write(right, 33, 'base64');
  return hash('sha256', nodeBytes, 'base64');
}

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT = hash('sha256', '', 'base64');

/**
 * The tree's right edge: the hashes of the complete subtrees that make up its `size` leaves, largest
 * (leftmost) first, one per bit set in `size`. Appending needs nothing else, so it reads no old node.
 */
export interface Frontier {
  size: number;
  hashes: string[];
}

/** Stored as one text column: the hashes joined by commas (base64 has none). */
export const encodeFrontier = (hashes: readonly string[]) => hashes.join(',');
export const decodeFrontier = (text: string) => (text === '' ? [] : text.split(','));

/**
 * Subtrees of two leaves are not stored: they are half of all interior subtrees, so appends insert half
 * the rows, and a proof that names one reads its two leaves instead, which the events hold anyway: one
 * read more.
 */
const isStored = ({ level }: TreeNode) => level !== 1;

/** Appends the leaves; returns the new frontier and the complete interior subtrees to store that appending completed. */
export function appendLeaves(frontier: Frontier, leafHashes: readonly string[]): { frontier: Frontier; nodes: StoredNode[] } {
  const hashes = [...frontier.hashes];
  const nodes: StoredNode[] = [];
  let size = frontier.size;
  for (const leaf of leafHashes) {
    let hash = leaf;
    // Each trailing one bit of the old size is a subtree of the same height as the new one on its left: merge.
    for (let level = 0; (size >> level) & 1; level++) {
      hash = nodeHash(hashes.pop() as string, hash);
      const node = { level: level + 1, index: size >> (level + 1), hash };
      if (isStored(node)) {
        nodes.push(node);
      }
    }
    hashes.push(hash);
    size++;
  }
  return { frontier: { size, hashes }, nodes };
}

/** The root of the tree whose frontier this is. */
export function frontierRoot(hashes: readonly string[]): string {
  return hashes.length === 0 ? EMPTY_ROOT : hashes.reduceRight((right, left) => nodeHash(left, right));
}

/** A range of leaves [start, end) whose subtree hash a proof holds. */
interface LeafRange {
  start: number;
  end: number;
}

/** The largest power of two smaller than n (n > 1). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) {
    k *= 2;
  }
  return k;
}

/** RFC 9162 2.1.3.1 PATH(m, D[start:end]), as the ranges whose hashes it lists, from the leaf up. */
function inclusionRanges(m: number, start: number, end: number): LeafRange[] {
  const n = end - start;
  if (n <= 1) {
    return [];
  }
  const k = splitPoint(n);
  return m < k
    ? [...inclusionRanges(m, start, start + k), { start: start + k, end }]
    : [...inclusionRanges(m - k, start + k, end), { start, end: start + k }];
}

/** RFC 9162 2.1.4.1 SUBPROOF(m, D[start:end], b), as ranges. */
function consistencyRanges(m: number, start: number, end: number, whole: boolean): LeafRange[] {
  const n = end - start;
  if (m === n) {
    return whole ? [] : [{ start, end }];
  }
  const k = splitPoint(n);
  return m <= k
    ? [...consistencyRanges(m, start, start + k, whole), { start: start + k, end }]
    : [...consistencyRanges(m - k, start + k, end, false), { start, end: start + k }];
}

/**
 * The complete subtrees that make up a range, left to right. Every range a proof names starts at a
 * multiple of a power of two at least its length, so they are the range's own subtrees: at most one
 * per level, O(log n) of them.
 */
function completeSubtrees({ start, end }: LeafRange): TreeNode[] {
  const nodes: TreeNode[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) {
      level++;
    }
    nodes.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return nodes;
}

/** What a proof needs read, and how to make it from what was read: O(log n) stored nodes in all. */
export interface ProofPlan {
  nodes: TreeNode[];
  hashes: (read: (node: TreeNode) => string) => string[];
}

/** The stored subtrees that make up `node`: itself, or the two leaves of a pair. */
const storedParts = (node: TreeNode): TreeNode[] =>
  isStored(node)
    ? [node]
    : [
        { level: 0, index: 2 * node.index },
        { level: 0, index: 2 * node.index + 1 },
      ];

function planFor(ranges: LeafRange[]): ProofPlan {
  const parts = ranges.map(completeSubtrees);
  return {
    nodes: parts.flat().flatMap(storedParts),
    hashes: (read) => {
      const hashOf = (node: TreeNode) => storedParts(node).map(read).reduce((left, right) => nodeHash(left, right));
      return parts.map((subtrees) => subtrees.map(hashOf).reduceRight((right, left) => nodeHash(left, right)));
    },
  };
}

/** The inclusion path of leaf `index` in the tree of `size` leaves (0 <= index < size). */
export const inclusionPlan = (index: number, size: number) => planFor(inclusionRanges(index, 0, size));

/** The consistency path from the tree of `first` leaves to that of `second` (0 < first <= second). */
export const consistencyPlan = (first: number, second: number) => planFor(first === second ? [] : consistencyRanges(first, 0, second, true));

/** The hash of leaf `index` alone. */
export const leafPlan = (index: number) => planFor([{ start: index, end: index + 1 }]);

/** The root of the tree of `size` leaves, from its complete subtrees. */
export const rootPlan = (size: number) => planFor(size === 0 ? [] : [{ start: 0, end: size }]);

/** RFC 9162 2.1.4.2: whether `path` proves the tree (`second`, `secondRoot`) extends (`first`, `firstRoot`). */
export function verifyConsistency(first: number, second: number, firstRoot: string, secondRoot: string, path: readonly string[]): boolean {
  if (first > second) {
    return false;
  }
  if (first === second) {
    return path.length === 0 && firstRoot === secondRoot;
  }
  if (first === 0) {
    return path.length === 0;
  }
  const proof = [...path];
  if ((first & (first - 1)) === 0) {
    proof.unshift(firstRoot);
  }
  if (proof.length === 0) {
    return false;
  }
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = proof[0];
  let sr = proof[0];
  for (const c of proof.slice(1)) {
    if (sn === 0) {
      return false;
    }
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr === firstRoot && sr === secondRoot;
}
