import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { createFleetRegistryClient, type FleetRegistryClient } from '../clients/typescript/src';
import { CLIENT_GENERATED_DIR, generateClient, readGeneratedFiles } from './support/client-types';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY, RECOMMISSION_BODY } from './support/fixtures';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';
import { extendTrail } from './support/trail';
import { waitUntil } from './support/wait';
import { SINK_TEST_ENV, startWebhookSink, type WebhookSink } from './support/webhooks';

const ROOT = join(__dirname, '..', '..');

describeEachDatabase('the typed client (clients/typescript) against the service', (engine) => {
  let t: TestApp;
  let client: FleetRegistryClient;
  /** Where the subscription made below points: its deliveries fail on this machine. */
  let sink: WebhookSink;

  before(async () => {
    sink = await startWebhookSink();
    t = await startTestApp({ engine, env: SINK_TEST_ENV });
    client = createFleetRegistryClient(await listenOnLoopback(t), t.bearer('admiral-7', 7).slice('Bearer '.length));
  });
  after(async () => {
    await t.close();
    await sink.close();
  });

  it('has committed code equal to what @hey-api/openapi-ts makes of the document the service serves (npm run client:generate)', async () => {
    const served = (await t.http().get('/docs-json').expect(200)).body;
    const fresh = mkdtempSync(join(tmpdir(), 'fleet-registry-client-'));
    try {
      await generateClient(served, fresh);
      assert.deepEqual(readGeneratedFiles(join(ROOT, CLIENT_GENERATED_DIR)), readGeneratedFiles(fresh), 'the committed client differs from the served document: run npm run client:generate');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('decommissions, reads, recommissions, lists and queries the audit trail through typed calls', async () => {
    const path = { asset_id: 'TIE-0001' };
    const decommissioned = await client.assets.decommission({ path, body: DECOMMISSION_BODY });
    assert.equal(decommissioned.response?.status, 200);
    // The asset, as here with DECOMMISSION_APPROVAL=none; a request (202) under required.
    const asset = decommissioned.data?.data;
    assert.ok(asset && 'decommission_reason' in asset);
    assert.equal(asset.decommission_reason, DECOMMISSION_BODY.reason);

    const read = await client.assets.findOne({ path });
    assert.equal(read.data?.data.status, 'decommissioned');

    const recommissioned = await client.assets.recommission({ path, body: RECOMMISSION_BODY });
    // The asset, as here with DECOMMISSION_APPROVAL=none; a request of kind recommission (202) under required.
    const active = recommissioned.data?.data;
    assert.ok(active && !('kind' in active));
    assert.equal(active.status, 'active');

    const again = await client.assets.recommission({ path, body: RECOMMISSION_BODY });
    assert.equal(again.response?.status, 409);
    assert.equal(again.error?.error_code, 'ASSET_NOT_DECOMMISSIONED');

    const listed = await client.assets.list({ query: { status: 'active', limit: 100 } });
    assert.ok(listed.data?.data.assets.some((asset) => asset.asset_id === 'TIE-0001'));

    const history = await client.audit.list({ query: { asset_id: 'TIE-0001', outcome: 'allowed', limit: 1 } });
    assert.deepEqual(history.data?.data.events.map((event) => event.action), ['asset.recommission']);
    const cursor = history.data?.data.next_cursor;
    assert.ok(cursor);
    const older = await client.audit.list({ query: { asset_id: 'TIE-0001', outcome: 'allowed', limit: 1, cursor } });
    assert.deepEqual(older.data?.data.events.map((event) => event.action), ['asset.decommission']);
    assert.equal(older.data?.data.next_cursor, null);
  });

  it('creates, reads, resumes, rotates, lists the deliveries of and deletes a webhook subscription through typed calls', async () => {
    const admiral = createFleetRegistryClient(await listenOnLoopback(t), t.bearer('admiral-9', 9).slice('Bearer '.length));
    const created = await admiral.webhooks.create({ body: { url: sink.url('/hooks/fleet'), filter: { outcomes: ['denied'] }, start: 'now' } });
    // From now, with only allowed calls after it: nothing is sent, so the deliveries listed below are none.
    assert.equal(created.response?.status, 201);
    const id = created.data?.data.id;
    assert.ok(id && created.data?.data.secret.startsWith('whsec_'));
    const path = { id };
    assert.deepEqual((await client.webhooks.findOne({ path })).data?.data.filter, { outcomes: ['denied'] });
    assert.ok((await client.webhooks.list({ query: { limit: 100 } })).data?.data.webhooks.some((webhook) => webhook.id === id));
    assert.equal((await admiral.webhooks.resume({ path })).data?.data.state, 'active');
    assert.notEqual((await admiral.webhooks.rotateSecret({ path })).data?.data.secret, created.data?.data.secret);
    assert.deepEqual((await client.webhooks.deliveries({ path, query: { limit: 10 } })).data?.data.deliveries, []);
    assert.equal((await admiral.webhooks.delete({ path })).response?.status, 200);
    const gone = await client.webhooks.findOne({ path });
    assert.equal(gone.error?.error_code, 'WEBHOOK_NOT_FOUND');
  });
});

describeEachDatabase('the typed client reads the audit tiles', (engine) => {
  let t: TestApp;
  let client: FleetRegistryClient;

  before(async () => {
    t = await startTestApp({ engine, records: false, env: { AUDIT_CHECKPOINT_INTERVAL_MS: '100' } });
    client = createFleetRegistryClient(await listenOnLoopback(t), t.bearer('admiral-7', 7).slice('Bearer '.length));
  });
  after(() => t.close());

  it('fetches a partial hash tile and entry bundle, the index path sent as one parameter', async () => {
    await extendTrail(t.db, 3);
    await waitUntil(async () => (await client.audit.checkpoint()).data?.split('\n')[1] === '3', 'no checkpoint of 3 entries within 10 s');
    const tile = await client.auditTiles.hashes({ path: { level: '0', path: '000.p/3' } });
    assert.equal(tile.response?.status, 200);
    assert.equal((await tile.data?.arrayBuffer())?.byteLength, 96);
    const bundle = await client.auditTiles.entries({ path: { path: '000.p/2' } });
    const bytes = Buffer.from((await bundle.data?.arrayBuffer()) ?? new ArrayBuffer(0));
    assert.equal(JSON.parse(bytes.subarray(2, 2 + bytes.readUInt16BE(0)).toString())[0], 1, 'the first entry is the first event');
  });
});
