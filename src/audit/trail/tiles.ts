import { ResourceNotFoundError } from '../../common';

/**
 * The audit tree as C2SP tlog-tiles (https://c2sp.org/tlog-tiles): tiles of 256 consecutive hashes,
 * the level-L tile N holding the hashes of the complete subtrees of 256^L leaves numbered N*256 onwards,
 * and entry bundles holding the leaves themselves.
 */

/** Hashes in a full tile (a tile is a subtree of height 8), and entries in a full bundle. */
export const TILE_WIDTH = 256;
const TILE_HEIGHT = 8;
/** Levels a tile path may name (the specification's bound). */
const MAX_LEVEL = 63;
/** An entry is prefixed with its length as a big-endian uint16. */
const MAX_ENTRY_BYTES = 0xffff;

/** A tile, or an entry bundle (level 'entries'): `width` hashes or entries, 256 for a full one. */
export interface TileAddress {
  level: number | 'entries';
  index: number;
  width: number;
}

export const TILE_NOT_FOUND = 'AUDIT_TILE_NOT_FOUND';

/**
 * A path that names no tile: one that breaks the specification's encoding, or a tile past the tree. Both
 * are 404, as a static tile server answers any path it holds no file for, and as a client falls back on.
 */
const noTile = (message: string) => new ResourceNotFoundError(TILE_NOT_FOUND, message);

/** The level of the tree a tile's hashes sit at: a level-L tile's hashes are subtrees of 2^(8L) leaves. */
export const treeLevelOf = (tileLevel: number) => tileLevel * TILE_HEIGHT;

/** `<N>` as the specification writes it: 3-digit groups, all but the last prefixed with `x` (1234067 is x001/x234/067). */
export function encodeTileIndex(index: number): string {
  const digits = String(index);
  const padded = digits.padStart(Math.ceil(digits.length / 3) * 3, '0');
  const groups = padded.match(/.{3}/g) as string[];
  return groups.map((group, at) => (at < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** The path after `tile/` (or `tile/entries/`): `<N>` or `<N>.p/<W>`. */
export const tilePathOf = ({ index, width }: Pick<TileAddress, 'index' | 'width'>) =>
  `${encodeTileIndex(index)}${width < TILE_WIDTH ? `.p/${width}` : ''}`;

/** At most 6 groups: an index of 18 digits, past any tree of 2^53 leaves. */
const INDEX_PATH = /^((?:x\d{3}\/){0,5}\d{3})(?:\.p\/([1-9]\d{0,2}))?$/;

/** The tile a path names, in the specification's exact (canonical) encoding; a 404 naming what is wrong otherwise. */
export function parseTilePath(level: string, indexPath: string): TileAddress {
  if (level !== 'entries' && !/^(0|[1-9]\d?)$/.test(level)) {
    throw noTile(`the tile level must be entries or a decimal integer from 0 to ${MAX_LEVEL} without leading zeroes, not ${JSON.stringify(level)}`);
  }
  const tileLevel = level === 'entries' ? 'entries' : Number(level);
  if (tileLevel !== 'entries' && tileLevel > MAX_LEVEL) {
    throw noTile(`the tile level must be at most ${MAX_LEVEL}, not ${tileLevel}`);
  }
  const match = INDEX_PATH.exec(indexPath);
  const width = Number(match?.[2] ?? TILE_WIDTH);
  const index = Number((match?.[1] ?? '').replace(/[x/]/g, ''));
  if (!match || (match[2] !== undefined && width >= TILE_WIDTH) || !Number.isSafeInteger(index) || encodeTileIndex(index) !== match[1]) {
    throw noTile(
      `the tile index must be 3-digit groups, all but the last prefixed with x, without a leading x000 group (such as x001/x234/067), then .p/<width 1 to 255> for a partial tile; not ${JSON.stringify(indexPath)}`,
    );
  }
  return { level: tileLevel, index, width };
}

/**
 * The range of nodes at the tile's tree level that it holds, in a tree of `treeSize` leaves; a
 * 404 when the tree does not hold them all: the spec's tiles are of complete subtrees only.
 */
export function tileRange({ level, index, width }: TileAddress, treeSize: number): { start: number; end: number } {
  const complete = Math.floor(treeSize / 2 ** treeLevelOf(level === 'entries' ? 0 : level));
  const start = index * TILE_WIDTH;
  if (start + width > complete) {
    throw noTile(`the tree of the latest checkpoint (${treeSize} entries) does not hold this tile yet`);
  }
  return { start, end: start + width };
}

/** A tile's content: the hashes, raw, one after another. */
export const hashTile = (hashes: readonly string[]) => Buffer.concat(hashes.map((hash) => Buffer.from(hash, 'base64')));

/** An entry bundle: each entry's UTF-8 bytes after their length as a big-endian uint16. */
export function entryBundle(entries: readonly string[]): Buffer {
  const parts = entries.flatMap((entry) => {
    const bytes = Buffer.from(entry);
    if (bytes.length > MAX_ENTRY_BYTES) {
      // The stored fields' limits (storable.ts) keep a leaf far below this: reaching it is a bug, not input.
      throw new Error(`an audit leaf of ${bytes.length} bytes does not fit an entry bundle`);
    }
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    return [length, bytes];
  });
  return Buffer.concat(parts);
}
