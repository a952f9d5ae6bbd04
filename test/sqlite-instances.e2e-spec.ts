import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DECOMMISSION_BODY, FIXTURE_RECORDS } from './support/fixtures';
import { type RunningServer, runScript, SCRIPTS, startServer, migrateAndImport } from './support/processes';

describe('two server processes on one SQLite file', () => {
  let cwd: string;
  let servers: RunningServer[] = [];
  let bearer: string;

  const call = (server: RunningServer, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { Authorization: bearer, 'Content-Type': 'application/json' } });
  const json = async (server: RunningServer, path: string) => (await (await call(server, path)).json()) as { data: any };
  const decommission = (server: RunningServer, assetId: string) =>
    call(server, `/v1/assets/${assetId}`, { method: 'DELETE', body: JSON.stringify(DECOMMISSION_BODY) });

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-sqlite-instances-'));
    const env = {
      DATABASE_URL: 'sqlite:registry.sqlite',
      JWT_SECRET: 'sqlite-instances-secret-of-32-characters',
      MIGRATE_ON_START: 'false',
      RATE_LIMIT_ENABLED: 'false',
    };
    await migrateAndImport(cwd, env, FIXTURE_RECORDS);
    servers = await Promise.all([startServer({ cwd, env }), startServer({ cwd, env })]);
    bearer = `Bearer ${(await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd, env })).stdout.trim()}`;
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(cwd, { recursive: true, force: true });
  });

  it('shows a decommission through one process in the other at once', async () => {
    const [a, b] = servers;
    assert.equal((await decommission(a, 'TIE-0001')).status, 200);
    assert.equal((await json(b, '/v1/assets/TIE-0001')).data.status, 'decommissioned');
    assert.equal((await decommission(b, 'TIE-0001')).status, 404);
  });

  it('decommissions exactly once under 50 concurrent DELETEs spread across both, each attempt audited', async () => {
    const statuses = await Promise.all(Array.from({ length: 50 }, async (_, index) => (await decommission(servers[index % 2], 'TIE-0002')).status));
    assert.equal(statuses.filter((status) => status === 200).length, 1);
    assert.equal(statuses.filter((status) => status === 404).length, 49);
    const events = await json(servers[1], '/v1/audit/events?asset_id=TIE-0002&limit=100');
    assert.equal(events.data.total_count, 50);
    assert.equal(events.data.events.filter((event: { outcome: string }) => event.outcome === 'allowed').length, 1);
  });
});
