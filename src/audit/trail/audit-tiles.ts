import { Injectable } from '@nestjs/common';
import { eventLeaf } from './audit-chain';
import { AuditTree } from './audit-tree';
import { entryBundle, hashTile, parseTilePath, TILE_WIDTH, tileRange, treeLevelOf } from './tiles';
import { TrailRepository } from './trail.repository';

/** A tile's bytes, and whether it is full: a full tile never changes, a partial one is replaced by wider ones. */
export interface Tile {
  bytes: Buffer;
  full: boolean;
}

/**
 * Serves the audit tree as C2SP tlog-tiles, up to the tree of the latest checkpoint. Every tile is one
 * read of at most 256 rows by an index: level-0 tiles and entry bundles read the events, higher levels
 * the stored subtrees (levels 8, 16, ...; only level 1 is not stored, and no tile holds it).
 */
@Injectable()
export class AuditTiles {
  constructor(
    private readonly repository: TrailRepository,
    private readonly tree: AuditTree,
  ) {}

  /** The tile at `tile/<level>/<indexPath>`, `level` being `entries` for an entry bundle; 404 for a path that names none. */
  async read(level: string, indexPath: string): Promise<Tile> {
    const address = parseTilePath(level, indexPath);
    const { treeSize } = await this.tree.latestCheckpoint();
    const { start, end } = tileRange(address, treeSize);
    const full = address.width === TILE_WIDTH;
    if (address.level === 'entries') {
      const leaves = await this.repository.findLeaves(start, end);
      return { bytes: entryBundle(this.complete(leaves, end - start).map(eventLeaf)), full };
    }
    const hashes =
      address.level === 0
        ? await this.repository.findLeafHashes(start, end)
        : await this.repository.findLevelHashes(treeLevelOf(address.level), start, end);
    return { bytes: hashTile(this.complete(hashes, end - start)), full };
  }

  /** The rows, once sure none is missing: a checkpoint is signed only over a tree whose rows are committed. */
  private complete<Row>(rows: Row[], expected: number): Row[] {
    if (rows.length !== expected) {
      throw new Error(`the audit tree holds ${rows.length} of the ${expected} rows of a tile its checkpoint covers`);
    }
    return rows;
  }
}
