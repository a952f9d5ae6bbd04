import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { decommission, expectErrorBody, listAuditEvents } from './support/http';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';
import { extendTrail } from './support/trail';
import { waitUntil } from './support/wait';

/*
 * A C2SP tlog-tiles client written here from the specifications alone (c2sp.org/tlog-tiles,
 * tlog-checkpoint, RFC 6962 2.1), apart from the service's Merkle code: it reads a checkpoint, fetches
 * the tiles and entry bundles its tree needs, and recomputes the checkpoint's root from them.
 */
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const leafHash = (entry: Buffer) => sha256(Buffer.from([0]), entry);
const nodeHash = (left: Buffer, right: Buffer) => sha256(Buffer.from([1]), left, right);
/** RFC 6962 MTH, by its recursive definition. */
function mth(hashes: Buffer[]): Buffer {
  if (hashes.length === 0) return sha256();
  if (hashes.length === 1) return hashes[0];
  const k = 2 ** Math.floor(Math.log2(hashes.length - 1));
  return nodeHash(mth(hashes.slice(0, k)), mth(hashes.slice(k)));
}

/** `<N>`: zero-padded 3-digit path elements, all but the last beginning with x. */
function tileIndex(n: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, '0'));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((group, at) => (at < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** The path of tile N at level L ('entries' for a bundle) in a tree of `size` leaves: full, or partial with its width. */
function tilePath(level: number | 'entries', n: number, size: number): string {
  const count = Math.floor(size / 256 ** (level === 'entries' ? 0 : level));
  const width = n < Math.floor(count / 256) ? 256 : count % 256;
  return `/v1/audit/tile/${level}/${tileIndex(n)}${width < 256 ? `.p/${width}` : ''}`;
}

const split = (bytes: Buffer, width: number) => Array.from({ length: bytes.length / width }, (_, at) => bytes.subarray(at * width, (at + 1) * width));

/** An entry bundle's entries: each after its length as a big-endian uint16. */
function bundleEntries(bundle: Buffer): Buffer[] {
  const entries: Buffer[] = [];
  for (let at = 0; at < bundle.length; ) {
    const length = bundle.readUInt16BE(at);
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/** Fetches a tile's bytes, failing on anything but 200. */
type FetchTile = (path: string) => Promise<Buffer>;

/** Every tile and entry bundle of the tree of `size` leaves, fetched 8 at a time, as the specification lets a client. */
async function fetchTiles(fetchTile: FetchTile, size: number): Promise<Map<string, Buffer>> {
  const paths: string[] = [];
  for (let n = 0; n * 256 < size; n++) paths.push(tilePath('entries', n, size));
  for (let level = 0; Math.floor(size / 256 ** level) > 0; level++) {
    for (let n = 0; n * 256 < Math.floor(size / 256 ** level); n++) paths.push(tilePath(level, n, size));
  }
  const fetched = new Map<string, Buffer>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < paths.length) {
        const path = paths[next++];
        fetched.set(path, await fetchTile(path));
      }
    }),
  );
  return fetched;
}

/** Everything a client learns of a tree from its tiles: its root, and its leaves, each checked against its level-0 tile hash. */
async function readTree(fetchTile: FetchTile, size: number): Promise<{ root: Buffer; entries: Buffer[] }> {
  const tiles = await fetchTiles(fetchTile, size);
  const hashAt = (level: number, index: number): Buffer => {
    const tile = tiles.get(tilePath(level, Math.floor(index / 256), size)) as Buffer;
    return tile.subarray((index % 256) * 32, (index % 256 + 1) * 32);
  };
  // The hash of the complete subtree of 2^height leaves numbered from `start`: in a tile at a multiple of 8, or hashed from the level below.
  const subtree = (start: number, height: number): Buffer =>
    height % 8 === 0 ? hashAt(height / 8, start / 2 ** height) : nodeHash(subtree(start, height - 1), subtree(start + 2 ** (height - 1), height - 1));
  // The tree is its complete subtrees, largest first, one per bit of its size; the root folds them from the right.
  const subtrees: Buffer[] = [];
  for (let start = 0, height = 52; height >= 0; height--) {
    if (Math.floor(size / 2 ** height) % 2 === 1) {
      subtrees.push(subtree(start, height));
      start += 2 ** height;
    }
  }
  const root = subtrees.length === 0 ? sha256() : subtrees.reduceRight((right, left) => nodeHash(left, right));

  const entries: Buffer[] = [];
  for (let n = 0; n * 256 < size; n++) {
    const bundle = bundleEntries(tiles.get(tilePath('entries', n, size)) as Buffer);
    for (const [at, entry] of bundle.entries()) {
      assert.deepEqual(leafHash(entry), hashAt(0, n * 256 + at), `entry ${n * 256 + at} hashes to its level-0 tile hash`);
    }
    entries.push(...bundle);
  }
  // Each level-1 hash is the root of the full level-0 tile below it.
  for (let n = 0; n < Math.floor(size / 256); n++) {
    assert.deepEqual(hashAt(1, n), mth(split(tiles.get(tilePath(0, n, size)) as Buffer, 32)), `level-1 hash ${n}`);
  }
  return { root, entries };
}

/** A tiles client over HTTP, with the headers given. */
const tilesClient =
  (baseUrl: string, headers: Record<string, string> = {}): FetchTile =>
  async (path) => {
    const reply = await fetch(`${baseUrl}${path}`, { headers });
    assert.equal(reply.status, 200, `${path}: ${reply.status}`);
    return Buffer.from(await reply.arrayBuffer());
  };

/** The checkpoint's size and root, from its body (tlog-checkpoint: origin, size, base64 root). */
function checkpointOf(note: string): { size: number; root: string } {
  const [, size, root] = note.split('\n');
  return { size: Number(size), root };
}

const binary = (res: Response, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
};

describeEachDatabase('the audit trail as C2SP tlog-tiles', (engine) => {
  describe('behind clearance 7', () => {
    let t: TestApp;
    let admiral: string;
    const get = (path: string, authorization = admiral) => t.http().get(path).set('Authorization', authorization);
    const getBytes = (path: string) => get(path).buffer(true).parse(binary);
    const checkpoint = async () => checkpointOf((await t.http().get('/v1/audit/checkpoint').set('Authorization', admiral)).text);

    before(async () => {
      t = await startTestApp({ engine, records: false, env: { AUDIT_CHECKPOINT_INTERVAL_MS: '100' } });
      admiral = t.bearer('admiral-7', 7);
    });
    after(() => t.close());

    for (const size of [1, 255, 256, 257, 70_000]) {
      it(`recomputes the root of the checkpoint of ${size} entries from its tiles, and every leaf from the entry bundles`, async () => {
        const head = await t.db.selectFrom('audit_chain_head').select('event_count').executeTakeFirstOrThrow();
        await extendTrail(t.db, size - head.event_count);
        await waitUntil(async () => (await checkpoint()).size === size, `no checkpoint of ${size} entries within 10 s`);

        const { root, entries } = await readTree(tilesClient(await listenOnLoopback(t), { authorization: admiral }), size);

        assert.equal(root.toString('base64'), (await checkpoint()).root);
        assert.equal(entries.length, size);
        const last = JSON.parse(entries[size - 1].toString()) as unknown[];
        assert.equal(last[0], size, 'the last leaf is the JSON array of the last event, its id first');
      });
    }

    it('serves full tiles as immutable for a year, privately, and partial ones for a minute', async () => {
      const full = await getBytes('/v1/audit/tile/0/000').expect(200);
      assert.equal(full.headers['cache-control'], 'private, max-age=31536000, immutable');
      assert.equal(full.headers['content-type'], 'application/octet-stream');
      assert.equal(full.body.length, 8_192);
      const partial = await getBytes('/v1/audit/tile/1/001.p/17').expect(200);
      assert.equal(partial.headers['cache-control'], 'private, max-age=60');
      assert.equal(partial.body.length, 17 * 32);
      assert.equal((await get('/v1/audit/tile/entries/001').expect(200)).headers['cache-control'], 'private, max-age=31536000, immutable');
      assert.equal((await t.http().get('/v1/audit/checkpoint').set('Authorization', admiral).expect(200)).headers['cache-control'], 'no-store');
    });

    it('serves a narrower partial tile of a full one, which an older checkpoint needed', async () => {
      const full = await getBytes('/v1/audit/tile/0/001').expect(200);
      const partial = await getBytes('/v1/audit/tile/0/001.p/3').expect(200);
      assert.deepEqual(partial.body, full.body.subarray(0, 96));
    });

    it('answers 404 for tiles past the tree of the latest checkpoint', async () => {
      // 70,000 entries: 273 full level-0 tiles and a partial one of 112, one full level-1 tile and a partial of 17, a level-2 partial of 1.
      for (const path of ['0/273', '0/273.p/113', '0/274.p/1', 'entries/273', 'entries/273.p/113', '1/001', '1/001.p/18', '2/000', '2/000.p/2', '3/000.p/1', '63/000.p/1']) {
        expectErrorBody(await get(`/v1/audit/tile/${path}`).expect(404), 404, 'AUDIT_TILE_NOT_FOUND');
      }
      await get('/v1/audit/tile/0/273.p/112').expect(200);
      await get('/v1/audit/tile/1/001.p/17').expect(200);
      await get('/v1/audit/tile/2/000.p/1').expect(200);
    });

    it('answers 404 for paths that break the encoding of tlog-tiles', async () => {
      for (const path of ['00/000', '64/000', 'x/000', '0/0', '0/0000', '0/x000/001', '0/001/002', '0/x001', '0/000.p/0', '0/000.p/256', '0/000.p/01', '0/000.p', 'entries/000.p/256', 'entries/x000/000']) {
        const reply = await get(`/v1/audit/tile/${path}`).expect(404);
        expectErrorBody(reply, 404, 'AUDIT_TILE_NOT_FOUND');
      }
      assert.equal((await get('/v1/audit/tile/0/x000/001').expect(404)).body.message.includes('x001/x234/067'), true);
    });

    it('answers another method on a tile 405, naming GET', async () => {
      const reply = await t.http().post('/v1/audit/tile/0/x001/000.p/5').set('Authorization', admiral).expect(405);
      expectErrorBody(reply, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(reply.headers.allow, 'GET, HEAD');
    });

    it('refuses tiles without a token with 401 and below clearance 7 with 403, and records both refusals', async () => {
      expectErrorBody(await t.http().get('/v1/audit/tile/0/000').expect(401), 401, 'UNAUTHENTICATED');
      expectErrorBody(await get('/v1/audit/tile/entries/000', t.bearer('lieutenant-6', 6)).expect(403), 403, 'CLEARANCE_INSUFFICIENT');
      expectErrorBody(await t.http().get('/v1/audit/checkpoint').set('Authorization', t.bearer('lieutenant-6', 6)).expect(403), 403, 'CLEARANCE_INSUFFICIENT');
      const events = (await listAuditEvents(t, 'outcome=denied&limit=3', admiral).expect(200)).body.data.events;
      assert.deepEqual(
        events.map((event: { action: string; reason: string; actor: string | null; path: string }) => [event.action, event.reason, event.actor, event.path]),
        [
          ['audit.read', 'CLEARANCE_INSUFFICIENT', 'lieutenant-6', '/v1/audit/checkpoint'],
          ['audit.read', 'CLEARANCE_INSUFFICIENT', 'lieutenant-6', '/v1/audit/tile/entries/000'],
          ['auth.authenticate', 'TOKEN_MISSING', null, '/v1/audit/tile/0/000'],
        ],
      );
    });
  });

  describe('with AUDIT_TILES_PUBLIC=true', () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp({ engine, env: { AUDIT_CHECKPOINT_INTERVAL_MS: '100', AUDIT_TILES_PUBLIC: 'true' } });
    });
    after(() => t.close());

    it('serves the checkpoint and the tiles to anyone, full tiles as public and immutable, and their root is the checkpoint root', async () => {
      // A decision with details among the leaves: its entry holds them as the tree hashes them.
      await decommission(t, 'TIE-0001', t.bearer('admiral-7', 7)).expect(200);
      await extendTrail(t.db, 300);
      const { event_count: size } = await t.db.selectFrom('audit_chain_head').select('event_count').executeTakeFirstOrThrow();
      await waitUntil(async () => checkpointOf((await t.http().get('/v1/audit/checkpoint').expect(200)).text).size === size, `no checkpoint of ${size} entries within 10 s`);
      const note = await t.http().get('/v1/audit/checkpoint').expect(200);
      assert.equal(note.headers['cache-control'], 'no-store');

      const { root, entries } = await readTree(tilesClient(await listenOnLoopback(t)), size);

      assert.equal(root.toString('base64'), checkpointOf(note.text).root);
      const leaves = entries.map((entry) => JSON.parse(entry.toString()) as unknown[]);
      assert.deepEqual(leaves.filter((leaf) => leaf[2] === 'asset.decommission').map((leaf) => leaf[13]), [DECOMMISSION_BODY]);
      assert.equal((await t.http().get('/v1/audit/tile/0/000').expect(200)).headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal((await t.http().get('/v1/audit/tile/0/001.p/1').expect(200)).headers['cache-control'], 'public, max-age=60');
    });

    it('lets a token of any clearance through the tiles, and keeps the other audit routes behind clearance 7', async () => {
      await t.http().get('/v1/audit/tile/entries/000').set('Authorization', t.bearer('cadet-0', 0)).expect(200);
      expectErrorBody(await t.http().get('/v1/audit/events').expect(401), 401, 'UNAUTHENTICATED');
      expectErrorBody(await t.http().get('/v1/audit/checkpoint/verifier-key').expect(401), 401, 'UNAUTHENTICATED');
    });
  });
});
