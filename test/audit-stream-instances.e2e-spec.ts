import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DECOMMISSION_BODY } from './support/fixtures';
import type { RunningServer } from './support/processes';
import { type PostgresInstances, startPostgresInstances } from './support/postgres-instances';
import { openStream, type SseFrame } from './support/sse';

const SECRET = 'stream-instances-secret-of-at-least-32-chars';
const STREAM = '/v1/audit/events/stream';

describe('the audit stream across two server processes on one PostgreSQL database', { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  let instances: PostgresInstances | undefined;
  let servers: RunningServer[] = [];
  let admiral: string;

  const decommission = (server: RunningServer, assetId: string) =>
    fetch(`${server.url}/v1/assets/${assetId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${admiral}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(DECOMMISSION_BODY),
    });
  const recommission = (server: RunningServer, assetId: string) =>
    fetch(`${server.url}/v1/assets/${assetId}/recommission`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admiral}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(DECOMMISSION_BODY),
    });
  const stream = (server: RunningServer, headers: Record<string, string> = {}) =>
    openStream(`${server.url.replace('localhost', '127.0.0.1')}${STREAM}?asset_id=TIE-0001`, { Authorization: `Bearer ${admiral}`, ...headers });
  const actionOf = (frame: SseFrame) => (JSON.parse(frame.data ?? '{}') as { action: string }).action;

  before(async () => {
    instances = await startPostgresInstances('stream-instances', SECRET);
    ({ servers, admiral } = instances);
  });
  after(() => instances?.stop());

  it('delivers an event placed by one instance to a stream on the other within a second, and resumes on the first after a reconnect with nothing lost or repeated', async () => {
    const [a, b] = servers;
    const onB = await stream(b);
    assert.equal(onB.status, 200);
    const latencies: number[] = [];
    const seen: SseFrame[] = [];
    for (const [index, change] of [decommission, recommission, decommission].entries()) {
      const started = performance.now();
      assert.equal((await change(a, 'TIE-0001')).status, 200, `change ${index}`);
      const [frame] = await onB.take(1, 2_000);
      assert.ok(frame, `event ${index} reached the other instance`);
      latencies.push(performance.now() - started);
      seen.push(frame);
    }
    assert.ok(Math.max(...latencies) < 1_000, `within a second: ${latencies.map(Math.round).join(', ')} ms`);
    assert.deepEqual(seen.map(actionOf), ['asset.decommission', 'asset.recommission', 'asset.decommission']);

    // The client drops; the trail moves on through both instances; it reconnects to the other instance.
    onB.close();
    assert.equal((await recommission(b, 'TIE-0001')).status, 200);
    assert.equal((await decommission(a, 'TIE-0001')).status, 200);
    const onA = await stream(a, { 'Last-Event-ID': seen[seen.length - 1].id ?? '' });
    const replayed = await onA.take(2, 2_000);
    assert.deepEqual(replayed.map(actionOf), ['asset.recommission', 'asset.decommission']);
    assert.equal((await recommission(b, 'TIE-0001')).status, 200);
    const [live] = await onA.take(1, 2_000);
    assert.equal(actionOf(live), 'asset.recommission');
    const ids = [...seen, ...replayed, live].map((frame) => Number(frame.id));
    assert.deepEqual(ids, [...ids].sort((x, y) => x - y), 'in order');
    assert.equal(new Set(ids).size, ids.length, 'none twice');
    assert.deepEqual(await onA.take(1, 500), []);
    onA.close();
  });
});
