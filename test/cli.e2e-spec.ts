import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, runScript, SCRIPTS, startServer } from './support/processes';

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
    mkdirSync(join(cwd, 'custom'));
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

  it('reads only the JWT_* variables (and NODE_ENV): a mistake in another is not its concern', async () => {
    const result = await runScript(SCRIPTS.token, ['--sub', 'o', '--clearance', '1'], { cwd, env: { JWT_SECRET: SECRET, PORT: 'abc', DATABASE_URL: 'mysql://x' } });
    assert.equal(result.code, 0, result.stderr);
  });

  for (const [args, code] of [
    [['--clearance', '7'], 2],
    [['--sub', 'o'], 2],
    [['--sub', 'o', '--clearance', '11'], 2],
    [['--sub', 'o', '--clearance', 'high'], 2],
    [['--sub', 'o', '--clearance', '7', '--unknown'], 2],
    [['--sub', 'o', '--clearance', '7', '--ttl', 'forever'], 1],
  ] as const) {
    it(`refuses ${args.join(' ')} in one line, exit code ${code}`, async () => {
      const result = await runScript(SCRIPTS.token, [...args], { cwd, env: { JWT_SECRET: SECRET } });
      assert.equal(result.code, code);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^.+\n$/);
    });
  }
});

/** Each command, how it is called, and a use of it that lacks an option's value. */
const COMMANDS = [
  { name: 'token', script: SCRIPTS.token, lackingValue: ['--clearance', '1', '--sub'], option: '--sub' },
  { name: 'db:import', script: SCRIPTS.import, lackingValue: ['fleet.json', '--format'], option: '--format' },
  { name: 'db:export', script: SCRIPTS.export, lackingValue: ['fleet.csv', '--kind'], option: '--kind' },
  { name: 'db:migrate', script: SCRIPTS.migrate },
  { name: 'audit:verify', script: SCRIPTS.auditVerify },
  { name: 'audit:export', script: SCRIPTS.auditExport, lackingValue: ['--since'], option: '--since' },
];

describe('every command alike', () => {
  let cwd: string;
  before(() => {
    cwd = workDir();
  });
  after(() => rmSync(cwd, { recursive: true, force: true }));

  for (const { name, script, lackingValue, option } of COMMANDS) {
    it(`${name}: --help prints the usage with exit code 0; an unknown option, a stray argument or a missing value exit code 2, named`, async () => {
      const help = await runScript(script, ['--help'], { cwd });
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^usage: npm run ${name}\\b`));
      const hint = `. Run npm run ${name} -- --help for the options\n`;
      const misuses: [string[], string][] = [
        [['--verbose'], 'Unknown option --verbose'],
        [['-x'], 'Unknown option -x'],
        lackingValue === undefined ? [['stray', 'more'], 'Unexpected argument "stray"'] : [lackingValue, `${option} needs a value`],
      ];
      for (const [args, problem] of misuses) {
        const result = await runScript(script, args, { cwd });
        assert.deepEqual({ code: result.code, stdout: result.stdout, stderr: result.stderr }, { code: 2, stdout: '', stderr: `${problem}${hint}` }, args.join(' '));
      }
      assert.ok(!existsSync(join(cwd, 'data')), 'nothing is opened or created before the arguments are accepted');
    });
  }

  it('says in one line, without a stack or a system error code, that the database cannot be reached: exit code 1', async () => {
    const url = `postgres://fleet@127.0.0.1:${await freePort()}/registry`;
    const runs = [
      [SCRIPTS.migrate, []],
      [SCRIPTS.auditVerify, []],
      [SCRIPTS.auditExport, []],
      [SCRIPTS.import, ['fleet.json']],
      [SCRIPTS.export, ['fleet.json']],
    ] as const;
    writeFileSync(join(cwd, 'fleet.json'), '{"vessels": []}');
    for (const [script, args] of runs) {
      const result = await runScript(script, [...args], { cwd, env: { DATABASE_URL: url } });
      assert.equal(result.code, 1, script);
      assert.equal(
        result.stderr,
        `Cannot reach the database at ${url}: the connection was refused. Check DATABASE_URL, and that the database is up and reachable from here\n`,
        script,
      );
    }
  });

  it('refuses a SQLite path whose directory is missing, in one line naming it, and creates nothing; creates data/ for the default file', async () => {
    const dir = workDir();
    try {
      writeFileSync(join(dir, 'fleet.json'), '{"vessels": []}');
      const runs = [
        [SCRIPTS.migrate, []],
        [SCRIPTS.import, ['fleet.json']],
        [SCRIPTS.decommissionApproval, ['required']],
      ] as const;
      for (const [script, args] of runs) {
        const result = await runScript(script, [...args], { cwd: dir, env: { DATABASE_URL: 'sqlite:typo/registry.sqlite' } });
        assert.deepEqual(
          { code: result.code, stderr: result.stderr },
          {
            code: 1,
            stderr: `Invalid configuration: DATABASE_URL names ${join(dir, 'typo', 'registry.sqlite')}, whose directory ${join(dir, 'typo')} does not exist: check the path, or create the directory first\n`,
          },
          script,
        );
      }
      assert.deepEqual(readdirSync(dir), ['fleet.json'], 'no directory and no database is created');
      const migrated = await runScript(SCRIPTS.migrate, [], { cwd: dir, env: { DATABASE_URL: 'sqlite:data/registry.sqlite' } });
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.ok(existsSync(join(dir, 'data', 'registry.sqlite')), 'the data directory is the service\'s own, created when missing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('migrates and imports in production with no JWT variable: the database commands read only DATABASE_*', async () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'sqlite:production.sqlite', PORT: 'abc', METRICS_TOKEN: 'short' };
    const migrated = await runScript(SCRIPTS.migrate, [], { cwd, env });
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /^Applied 001-initial, .* to .*production\.sqlite\n$/);
    writeFileSync(join(cwd, 'fleet.json'), '{"vessels": []}');
    const imported = await runScript(SCRIPTS.import, ['fleet.json'], { cwd, env });
    assert.equal(imported.code, 0, imported.stderr);
    const verified = await runScript(SCRIPTS.auditVerify, [], { cwd, env });
    assert.equal(verified.code, 0, verified.stderr);
  });
});
