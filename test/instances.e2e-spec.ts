import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { type RunningServer, runScript, SCRIPTS, startServers } from './support/processes';
import { type PostgresInstances, startPostgresInstances } from './support/postgres-instances';

const SECRET = 'instances-test-secret-of-at-least-32-chars';

describe('several server processes on one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  let instances: PostgresInstances | undefined;
  let cwd: string;
  let env: Record<string, string>;
  let servers: RunningServer[] = [];
  let admiral: string;

  const call = (server: RunningServer, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { Authorization: `Bearer ${admiral}`, 'Content-Type': 'application/json', ...init.headers } });
  const json = async (server: RunningServer, path: string) => (await (await call(server, path)).json()) as { data: any };
  const decommission = (server: RunningServer, assetId: string) =>
    call(server, `/v1/assets/${assetId}`, { method: 'DELETE', body: JSON.stringify(DECOMMISSION_BODY) });

  before(async () => {
    instances = await startPostgresInstances('instances', SECRET);
    ({ cwd, env, servers, admiral } = instances);
  });
  after(() => instances?.stop());

  it('starts without migrating when MIGRATE_ON_START=false, on the schema npm run db:migrate made', async () => {
    for (const server of servers) {
      assert.equal((await fetch(`${server.url}/health/ready`)).status, 200);
    }
  });

  it('shows a decommission through one instance in the other at once: the asset, the asset listing and the audit trail', async () => {
    const [a, b] = servers;
    assert.equal((await decommission(a, 'TIE-0001')).status, 200);

    assert.equal((await json(b, '/v1/assets/TIE-0001')).data.status, 'decommissioned');
    const listed = await json(b, '/v1/assets?status=decommissioned');
    assert.ok(listed.data.assets.some((asset: { asset_id: string }) => asset.asset_id === 'TIE-0001'));
    const events = await json(b, '/v1/audit/events?asset_id=TIE-0001');
    assert.deepEqual(
      events.data.events.map((e: { outcome: string }) => e.outcome),
      ['allowed'],
    );
    assert.equal((await decommission(b, 'TIE-0001')).status, 404, 'the other instance refuses it as no longer active');
  });

  it('serves the same fleet listing from both instances', async () => {
    const [a, b] = servers;
    for (const query of ['', '?sector=Outer%20Rim&limit=5&page=2']) {
      assert.deepEqual(await json(a, `/v1/fleet/star-destroyers${query}`), await json(b, `/v1/fleet/star-destroyers${query}`));
    }
  });

  it('decommissions exactly once under 50 concurrent DELETEs spread across both instances, each attempt audited', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => (await decommission(servers[index % 2], 'TIE-0002')).status),
    );
    assert.equal(statuses.filter((status) => status === 200).length, 1);
    assert.equal(statuses.filter((status) => status === 404).length, 49);
    const events = await json(servers[0], '/v1/audit/events?asset_id=TIE-0002&limit=100');
    assert.equal(events.data.total_count, 50);
    assert.equal(events.data.events.filter((e: { outcome: string }) => e.outcome === 'allowed').length, 1);
    assert.equal((await json(servers[1], '/v1/assets/TIE-0002')).data.status, 'decommissioned');
  });

  it('keeps one intact audit chain while both instances write at once, and both instances and the command verify it', async () => {
    const cadet = (await runScript(SCRIPTS.token, ['--sub', 'cadet', '--clearance', '3'], { cwd, env })).stdout.trim();
    const writes = Array.from({ length: 120 }, (_, index) => {
      const server = servers[index % 2];
      if (index % 3 === 0) return fetch(`${server.url}/v1/fleet/star-destroyers`);
      const init = { method: 'DELETE', body: JSON.stringify(DECOMMISSION_BODY) };
      return call(server, `/v1/assets/${index % 4 === 0 ? 'EQP-0001' : 'FAC-0001'}`, index % 3 === 1 ? { ...init, headers: { Authorization: `Bearer ${cadet}` } } : init);
    });
    assert.ok((await Promise.all(writes)).every((res) => res.status < 500));

    const [fromA, fromB] = await Promise.all(servers.map((server) => json(server, '/v1/audit/verify')));
    assert.equal(fromA.data.state, 'intact');
    assert.deepEqual(fromB, fromA);
    const listed = await json(servers[1], '/v1/audit/events?limit=100');
    assert.equal(listed.data.total_count, fromA.data.length);
    const events: { id: number; occurred_at: string; hash: string }[] = listed.data.events;
    assert.equal(events[0].hash, fromA.data.head_hash);
    for (let i = 1; i < events.length; i++) {
      assert.equal(events[i - 1].id, events[i].id + 1);
      assert.ok(events[i - 1].occurred_at >= events[i].occurred_at, 'occurred_at never decreases along the chain');
    }
    const command = await runScript(SCRIPTS.auditVerify, [], { cwd, env });
    assert.equal(command.code, 0, command.stderr);
    assert.match(command.stdout, new RegExp(`intact: ${fromA.data.length} events, head ${fromA.data.head_hash}`));
  });

  it('serves the same signed checkpoint, of the whole trail, from both instances', async () => {
    const text = async (server: RunningServer, path: string) => (await call(server, path)).text();
    const length = (await json(servers[0], '/v1/audit/verify')).data.length as number;
    const deadline = Date.now() + 10_000;
    let notes: string[] = [];
    while (Date.now() < deadline) {
      notes = await Promise.all(servers.map((server) => text(server, '/v1/audit/checkpoint')));
      if (notes[0] === notes[1] && notes[0].split('\n')[1] === String(length)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(notes[1], notes[0]);
    assert.equal(notes[0].split('\n')[1], String(length), 'the checkpoint covers every event');
    const keys = await Promise.all(servers.map((server) => text(server, '/v1/audit/checkpoint/verifier-key')));
    assert.equal(keys[1], keys[0], 'both sign with the one key generated beside the data');
  });

  it('lets two instances that both migrate at start-up come up together on a fresh schema', async () => {
    const fresh = await createTestDatabase('postgres', cwd);
    const freshEnv = { ...env, DATABASE_URL: fresh.url, MIGRATE_ON_START: 'true' };
    const pair = await startServers(2, { cwd, env: freshEnv });
    try {
      for (const server of pair) {
        assert.equal((await fetch(`${server.url}/health/ready`)).status, 200);
      }
    } finally {
      await Promise.all(pair.map((server) => server.stop()));
      await fresh.drop();
    }
  });
});
