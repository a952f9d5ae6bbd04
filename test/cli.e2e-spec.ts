import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runScript, SCRIPTS, startServer } from './support/processes';

const SECRET = 'cli-test-secret-that-is-at-least-32-chars';

function workDir(): string {
  return mkdtempSync(join(tmpdir(), 'fleet-registry-cli-'));
}

async function getJson(url: string, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: await res.json() };
}

describe('server start-up and configuration', () => {
  it('creates data/registry.sqlite and a secret under data/ on first start, seeds demo data, and accepts tokens from npm run token', async () => {
    const cwd = workDir();
    const server = await startServer({ cwd });
    try {
      assert.ok(existsSync(join(cwd, 'data', 'registry.sqlite')));
      assert.equal(statSync(join(cwd, 'data', 'jwt-secret')).mode & 0o777, 0o600);
      const issued = await runScript(SCRIPTS.token, ['--sub', 'officer-7', '--clearance', '7'], { cwd });
      assert.equal(issued.code, 0, issued.stderr);
      const token = issued.stdout.trim();

      const fleet = await getJson(`${server.url}/v1/fleet/star-destroyers`, token);
      assert.equal(fleet.status, 200);
      assert.equal(fleet.body.data.vessels.length, 10);
      const sectors = ['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds'];
      const counts = await Promise.all(
        sectors.map(async (sector) => (await getJson(`${server.url}/v1/fleet/star-destroyers?sector=${encodeURIComponent(sector)}`, token)).body.data.total_count as number),
      );
      assert.ok(counts.every((count) => count > 0), `every sector has vessels: ${counts.join(', ')}`);
      assert.ok(counts.some((count) => count > 10), 'some sector has more than one page');

      const assets = await getJson(`${server.url}/v1/assets?status=active&limit=100`, token);
      const kinds = new Set(assets.body.data.assets.map((asset: { asset_type: string }) => asset.asset_type));
      assert.deepEqual([...kinds].sort(), ['equipment', 'facility', 'vehicle']);
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('keeps its records and secret across restarts and does not seed a database that holds records', async () => {
    const cwd = workDir();
    const env = { SEED_DEMO: 'true' };
    let server = await startServer({ cwd, env });
    const token = (await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd })).stdout.trim();
    const assetId = 'TIE-0001';
    try {
      const res = await fetch(`${server.url}/v1/assets/${assetId}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: 'Scrapped', authorized_by: 'Admiral Ozzel' }),
      });
      assert.equal(res.status, 200);
    } finally {
      await server.stop();
    }
    server = await startServer({ cwd, env });
    try {
      const asset = await getJson(`${server.url}/v1/assets/${assetId}`, token);
      assert.equal(asset.status, 200, 'the token from before the restart is still valid');
      assert.equal(asset.body.data.status, 'decommissioned');
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('starts empty with SEED_DEMO=false and serves a database named by DATABASE_URL', async () => {
    const cwd = workDir();
    const server = await startServer({ cwd, env: { SEED_DEMO: 'false', DATABASE_URL: 'sqlite:custom/registry.db', JWT_SECRET: SECRET } });
    try {
      assert.ok(existsSync(join(cwd, 'custom', 'registry.db')));
      assert.ok(!existsSync(join(cwd, 'data', 'jwt-secret')), 'no secret file when JWT_SECRET is set');
      const token = (await runScript(SCRIPTS.token, ['--sub', 'o', '--clearance', '1'], { cwd, env: { JWT_SECRET: SECRET } })).stdout.trim();
      const fleet = await getJson(`${server.url}/v1/fleet/star-destroyers`, token);
      assert.deepEqual(fleet.body.data, { vessels: [], total_count: 0, page: 1, per_page: 10, next_cursor: null });
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  for (const [name, env, expected] of [
    ['a PORT that is not a port', { PORT: 'abc' }, /^Invalid configuration: PORT must be a whole number from 1 to 65535\n$/],
    ['an unsupported DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }, /DATABASE_URL/],
    ['a short JWT_SECRET', { JWT_SECRET: 'short' }, /JWT_SECRET must be at least 32 characters/],
    ['a SEED_DEMO that is not true or false', { SEED_DEMO: 'yes' }, /SEED_DEMO/],
    ['NODE_ENV=production without JWT_SECRET', { NODE_ENV: 'production' }, /JWT_SECRET is required when NODE_ENV=production/],
  ] as const) {
    it(`refuses to start with ${name}, with a clear message and no stack trace`, async () => {
      const cwd = workDir();
      try {
        const result = await runScript(SCRIPTS.server, [], { cwd, env });
        assert.equal(result.code, 1);
        assert.match(result.stderr, expected);
        assert.match(result.stderr, /^Invalid configuration: /);
        assert.doesNotMatch(result.stderr, /\n\s+at /);
        assert.ok(!existsSync(join(cwd, 'data')), 'nothing is created before the configuration is accepted');
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  }

  it('checks JWT_ISSUER and JWT_AUDIENCE when set: tokens from the token command carry them', async () => {
    const cwd = workDir();
    const env = { JWT_SECRET: SECRET, JWT_ISSUER: 'command-authority', JWT_AUDIENCE: 'fleet-registry', SEED_DEMO: 'false' };
    const server = await startServer({ cwd, env });
    try {
      const matching = (await runScript(SCRIPTS.token, ['--sub', 'o', '--clearance', '1'], { cwd, env })).stdout.trim();
      const foreign = (await runScript(SCRIPTS.token, ['--sub', 'o', '--clearance', '1'], { cwd, env: { JWT_SECRET: SECRET } })).stdout.trim();
      assert.equal((await getJson(`${server.url}/v1/fleet/star-destroyers`, matching)).status, 200);
      assert.equal((await getJson(`${server.url}/v1/fleet/star-destroyers`, foreign)).status, 401);
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('npm run token', () => {
  let cwd: string;
  before(() => {
    cwd = workDir();
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  const decode = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
  const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));

  it('prints an HS256 token with sub, clearance and an expiry one hour ahead by default', async () => {
    const result = await runScript(SCRIPTS.token, ['--sub', 'officer-7', '--clearance', '7'], { cwd, env: { JWT_SECRET: SECRET } });
    assert.equal(result.code, 0, result.stderr);
    const token = result.stdout.trim();
    assert.equal(header(token).alg, 'HS256');
    const claims = decode(token);
    assert.equal(claims.sub, 'officer-7');
    assert.equal(claims.clearance, 7);
    assert.ok(Math.abs(claims.exp - (Date.now() / 1000 + 3600)) < 60);
  });

  it('honours --ttl', async () => {
    const result = await runScript(SCRIPTS.token, ['--sub', 'o', '--clearance', '0', '--ttl', '15m'], { cwd, env: { JWT_SECRET: SECRET } });
    assert.ok(Math.abs(decode(result.stdout.trim()).exp - (Date.now() / 1000 + 900)) < 60);
  });

  for (const args of [
    ['--clearance', '7'],
    ['--sub', 'o'],
    ['--sub', 'o', '--clearance', '11'],
    ['--sub', 'o', '--clearance', 'high'],
    ['--sub', 'o', '--clearance', '7', '--ttl', 'forever'],
    ['--sub', 'o', '--clearance', '7', '--unknown'],
  ]) {
    it(`refuses ${args.join(' ')} with a message and exit code 1`, async () => {
      const result = await runScript(SCRIPTS.token, args, { cwd, env: { JWT_SECRET: SECRET } });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.trim().length > 0);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    });
  }
});
