import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceNotFoundError } from '../../common';
import { encodeTileIndex, entryBundle, parseTilePath, tilePathOf, tileRange } from './tiles';

const notATile = (run: () => unknown) => assert.throws(run, (error: unknown) => error instanceof ResourceNotFoundError && error.errorCode === 'AUDIT_TILE_NOT_FOUND');

describe('tlog-tiles paths and contents', () => {
  it('encodes a tile index as 3-digit groups, all but the last prefixed with x', () => {
    assert.deepEqual([0, 7, 999, 1_000, 1_234_067].map(encodeTileIndex), ['000', '007', '999', 'x001/000', 'x001/x234/067']);
    assert.equal(tilePathOf({ index: 1_234_067, width: 17 }), 'x001/x234/067.p/17');
    assert.equal(tilePathOf({ index: 5, width: 256 }), '005');
  });

  it('reads back the paths it writes: level, index and width', () => {
    assert.deepEqual(parseTilePath('0', 'x001/x234/067'), { level: 0, index: 1_234_067, width: 256 });
    assert.deepEqual(parseTilePath('63', '000.p/255'), { level: 63, index: 0, width: 255 });
    assert.deepEqual(parseTilePath('entries', '012.p/1'), { level: 'entries', index: 12, width: 1 });
  });

  it('refuses every other spelling with a 404, as a static tile server would', () => {
    for (const [level, path] of [['00', '000'], ['64', '000'], ['-1', '000'], ['0', '0'], ['0', 'x000/001'], ['0', '000.p/0'], ['0', '000.p/256'], ['0', '000.p/010'], ['0', '000/'], ['0', 'x1/000']]) {
      notATile(() => parseTilePath(level, path));
    }
  });

  it('places a tile among the complete subtrees of its level, refusing one the tree does not hold whole', () => {
    // 70,000 leaves: 273 full level-0 tiles and 112 leaves more; 273 level-1 hashes; 1 level-2 hash.
    assert.deepEqual(tileRange({ level: 0, index: 273, width: 112 }, 70_000), { start: 69_888, end: 70_000 });
    assert.deepEqual(tileRange({ level: 1, index: 1, width: 17 }, 70_000), { start: 256, end: 273 });
    assert.deepEqual(tileRange({ level: 2, index: 0, width: 1 }, 70_000), { start: 0, end: 1 });
    notATile(() => tileRange({ level: 0, index: 273, width: 113 }, 70_000));
    notATile(() => tileRange({ level: 1, index: 1, width: 256 }, 70_000));
    notATile(() => tileRange({ level: 'entries', index: 0, width: 1 }, 0));
  });

  it('writes an entry bundle as each entry after its length, a big-endian uint16', () => {
    assert.deepEqual(entryBundle(['ab', '', 'é']), Buffer.from([0, 2, 0x61, 0x62, 0, 0, 0, 2, 0xc3, 0xa9]));
    assert.equal(entryBundle(['x'.repeat(300)]).readUInt16BE(0), 300);
    assert.throws(() => entryBundle(['x'.repeat(65_536)]), /does not fit/);
  });
});
