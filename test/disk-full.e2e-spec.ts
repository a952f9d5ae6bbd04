import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { DECOMMISSION_BODY } from './support/fixtures';
import { expectErrorBody } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const ASSETS = Array.from({ length: 300 }, (_, index) => ({
  asset_id: `DSK-${String(index + 1).padStart(4, '0')}`,
  asset_type: 'equipment',
  former_pilot: 'TK-421',
}));

/** Writes zeros into `path` until the file system refuses more (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let i = 0; i < 100_000; i++) {
      writeSync(fd, chunk);
    }
    assert.fail('the small file system never filled');
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    closeSync(fd);
  }
}

// A real full disk: the SQLite database lives on an 8 MB tmpfs the test mounts, then fills.
describe('SQLite on a full disk', { skip: process.getuid?.() !== 0 && 'mounting a small tmpfs needs root' }, () => {
  const mountPoint = mkdtempSync(join(tmpdir(), 'fleet-registry-disk-'));
  const filler = join(mountPoint, 'filler');
  let t: TestApp;
  let officer: string;

  before(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mountPoint]);
    t = await startTestApp({
      database: { url: `sqlite:${join(mountPoint, 'registry.sqlite')}`, drop: async () => {} },
      records: { assets: ASSETS, vessels: [] },
    });
    officer = t.bearer('admiral', 7);
  });
  after(async () => {
    await t?.close();
    execFileSync('umount', [mountPoint]);
    rmdirSync(mountPoint);
  });

  it('answers 503 STORAGE_UNAVAILABLE with Retry-After while the disk is full, is not ready, writes nothing half, and resumes by itself', async () => {
    await t.http().get('/health/ready').expect(200);
    fill(filler);

    // The first writes may still fit in pages SQLite already holds: decommission until one is refused.
    let refused: { assetId: string; res: Response } | undefined;
    for (const { asset_id: assetId } of ASSETS) {
      const res = await t.http().delete(`/v1/assets/${assetId}`).set('Authorization', officer).send(DECOMMISSION_BODY);
      if (res.status !== 200) {
        refused = { assetId, res };
        break;
      }
    }
    assert.ok(refused, 'no decommission was refused on a full disk');
    expectErrorBody(refused.res, 503, 'STORAGE_UNAVAILABLE');
    assert.ok(Number(refused.res.headers['retry-after']) >= 1, `Retry-After: ${refused.res.headers['retry-after']}`);
    assert.doesNotMatch(refused.res.text, /SQLITE|disk|INSERT|UPDATE/i);
    const notReady = await t.http().get('/health/ready').expect(503);
    assert.deepEqual(notReady.body, { status: 'error', message: 'The database cannot store data (disk full, read-only or failing)', error_code: 'SERVICE_UNAVAILABLE' });

    rmSync(filler);
    await waitUntil(async () => (await t.http().get('/health/ready')).status === 200, 'not ready again within 15 s of space returning', 15_000);
    const asset = await t.http().get(`/v1/assets/${refused.assetId}`).set('Authorization', officer).expect(200);
    assert.equal(asset.body.data.status, 'active', 'the refused decommission changed nothing');
    await t.http().delete(`/v1/assets/${refused.assetId}`).set('Authorization', officer).send(DECOMMISSION_BODY).expect(200);
    await t.http().get('/v1/audit/verify').set('Authorization', t.bearer('admiral', 10)).expect(200);
  });
});
