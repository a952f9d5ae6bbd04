import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { expectErrorBody } from './support/http';
import { auditSigningKeyFile } from './support/key-files';
import { startServer } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';
import { tokenServiceFor } from './support/tokens';
import { SINK_TEST_ENV, startWebhookSink, type WebhookSink } from './support/webhooks';

/** A public address as a literal, for requests refused before anything is stored or sent: the checks take it without resolving a name. */
const PUBLIC_URL = 'https://93.184.215.14/hooks/fleet?token=receiver-token';
const ADMIRAL = 'admiral-9';
const WEBHOOK_KEYS = ['id', 'url', 'description', 'filter', 'state', 'cursor', 'attempts', 'last_error', 'next_attempt_at', 'created_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** Where the subscriptions that are stored point: deliveries to it fail on this machine. */
let sink: WebhookSink;
const targetUrl = () => sink.url('/hooks/fleet?token=receiver-token');
before(async () => {
  sink = await startWebhookSink();
});
after(() => sink.close());

describeEachDatabase('webhook subscriptions', (engine) => {
  let t: TestApp;
  let admiral: string;

  const create = (body: object, authorization = admiral) => t.http().post('/v1/webhooks').set('Authorization', authorization).send(body);
  const get = (path: string, authorization = admiral) => t.http().get(path).set('Authorization', authorization);
  const post = (path: string, authorization = admiral) => t.http().post(path).set('Authorization', authorization);
  const subscriptionCount = async () => (await t.db.selectFrom('webhook_subscriptions').select('feed_id').execute()).length;
  const newestEvent = () => t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  const newestId = async () => Number((await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').executeTakeFirst())?.id ?? 0);
  /** The stored rows of a subscription, every column, as text: what a dump would hold. */
  const dumpOf = async (id: string) =>
    JSON.stringify([
      await t.db.selectFrom('webhook_subscriptions').selectAll().where('feed_id', '=', id).execute(),
      await t.db.selectFrom('delivery_feeds').selectAll().where('feed_id', '=', id).execute(),
    ]);

  before(async () => {
    t = await startTestApp({ engine, env: SINK_TEST_ENV });
    admiral = t.bearer(ADMIRAL, 9);
  });
  after(() => t.close());

  it('creates a subscription: 201, Location, the secret shown once, from the newest event, with its event in the trail', async () => {
    const before = await newestId();
    const res = await create({ url: targetUrl(), description: 'SIEM: denials', filter: { outcomes: ['denied'] } }).expect(201);
    const { data } = res.body;
    assert.deepEqual(Object.keys(data).sort(), [...WEBHOOK_KEYS, 'secret'].sort());
    assert.match(data.id, UUID);
    assert.equal(res.headers.location, `/v1/webhooks/${data.id}`);
    assert.match(data.secret, SECRET);
    assert.deepEqual(
      { url: data.url, description: data.description, filter: data.filter, state: data.state, cursor: data.cursor, attempts: data.attempts },
      { url: targetUrl(), description: 'SIEM: denials', filter: { outcomes: ['denied'] }, state: 'active', cursor: before, attempts: 0 },
    );
    const event = await newestEvent();
    assert.deepEqual(
      [event.action, event.outcome, event.actor, Number(event.actor_clearance), JSON.parse(event.details as string)],
      ['webhook.create', 'allowed', ADMIRAL, 9, { webhook_id: data.id, url: sink.url('/hooks/fleet') }],
    );
    assert.ok(!JSON.stringify(event).includes(data.secret.slice(6)), 'the secret is not in the trail');
    const dump = await dumpOf(data.id);
    assert.ok(!dump.includes(data.secret.slice(6)), 'the stored rows do not hold the secret');

    const shown = (await get(res.headers.location).expect(200)).body.data;
    assert.deepEqual(Object.keys(shown).sort(), WEBHOOK_KEYS.sort());
    assert.equal(shown.created_at, data.created_at);
  });

  it('lists subscriptions newest first, without secrets, paged by limit and cursor', async () => {
    const first = (await create({ url: targetUrl() }).expect(201)).body.data.id;
    const second = (await create({ url: targetUrl() }).expect(201)).body.data.id;
    const page = (await get('/v1/webhooks?limit=1').expect(200)).body.data;
    assert.deepEqual(page.webhooks.map(({ id }: { id: string }) => id), [second]);
    assert.equal(page.per_page, 1);
    assert.ok(!('secret' in page.webhooks[0]));
    const next = (await get(`/v1/webhooks?limit=1&cursor=${page.next_cursor}`).expect(200)).body.data;
    assert.deepEqual(next.webhooks.map(({ id }: { id: string }) => id), [first]);
    const all = (await get('/v1/webhooks?limit=100').expect(200)).body.data;
    assert.equal(all.next_cursor, null);
    assert.equal(all.webhooks.length, await subscriptionCount());
    assert.deepEqual([page.total_count, page.page], [await subscriptionCount(), 1]);
    assert.deepEqual([next.total_count, next.page], [null, null], 'a cursor page counts nothing');
    assert.deepEqual((await get('/v1/webhooks?limit=1&page=2').expect(200)).body.data.webhooks.map(({ id }: { id: string }) => id), [first]);
    expectErrorBody(await get('/v1/webhooks?cursor=nope'), 400, 'VALIDATION_ERROR', 'cursor');
    expectErrorBody(await get(`/v1/webhooks?page=1&cursor=${page.next_cursor}`), 400, 'VALIDATION_ERROR', 'cursor');
  });

  it('starts from the beginning, or with a given event; an event that does not exist is refused naming start', async () => {
    assert.equal((await create({ url: targetUrl(), start: 'beginning' }).expect(201)).body.data.cursor, 0);
    const newest = await newestId();
    assert.equal((await create({ url: targetUrl(), start: newest }).expect(201)).body.data.cursor, newest - 1);
    const count = await subscriptionCount();
    expectErrorBody(await create({ url: targetUrl(), start: newest + 1000 }), 400, 'VALIDATION_ERROR', 'start');
    expectErrorBody(await create({ url: targetUrl(), start: 'later' }), 400, 'VALIDATION_ERROR', 'start');
    expectErrorBody(await create({ url: targetUrl(), start: 0 }), 400, 'VALIDATION_ERROR', 'start');
    assert.equal(await subscriptionCount(), count);
  });

  it('refuses a bad body naming the field, and creates nothing', async () => {
    const count = await subscriptionCount();
    const events = await newestId();
    for (const [body, field] of [
      [{}, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: '/relative/path' }, 'url'],
      [{ url: 'ftp://93.184.215.14/' }, 'url'],
      [{ url: 'https://user:pw@93.184.215.14/' }, 'url'],
      [{ url: `https://93.184.215.14/${'a'.repeat(2048)}` }, 'url'],
      [{ url: targetUrl(), description: 'd'.repeat(501) }, 'description'],
      [{ url: targetUrl(), filter: { actions: ['asset.explode'] } }, 'filter.actions'],
      [{ url: targetUrl(), filter: { actions: [] } }, 'filter.actions'],
      [{ url: targetUrl(), filter: { outcomes: ['maybe'] } }, 'filter.outcomes'],
      [{ url: targetUrl(), filter: { colour: 'red' } }, 'filter.colour'],
      [{ url: targetUrl(), filter: 'all' }, 'filter'],
      [{ url: targetUrl(), secret: 'whsec_mine' }, 'secret'],
    ] as const) {
      expectErrorBody(await create(body), 400, 'VALIDATION_ERROR', field);
    }
    assert.equal(await subscriptionCount(), count);
    assert.equal(await newestId(), events, 'no event for a refused creation');
  });

  it('answers 404 WEBHOOK_NOT_FOUND for an unknown id on every route, and 400 naming id for a malformed one', async () => {
    const unknown = randomUUID();
    expectErrorBody(await get(`/v1/webhooks/${unknown}`), 404, 'WEBHOOK_NOT_FOUND');
    expectErrorBody(await get(`/v1/webhooks/${unknown}/deliveries`), 404, 'WEBHOOK_NOT_FOUND');
    expectErrorBody(await t.http().delete(`/v1/webhooks/${unknown}`).set('Authorization', admiral), 404, 'WEBHOOK_NOT_FOUND');
    expectErrorBody(await post(`/v1/webhooks/${unknown}/resume`), 404, 'WEBHOOK_NOT_FOUND');
    expectErrorBody(await post(`/v1/webhooks/${unknown}/rotate-secret`), 404, 'WEBHOOK_NOT_FOUND');
    expectErrorBody(await get('/v1/webhooks/not-a-uuid'), 400, 'VALIDATION_ERROR', 'id');
  });

  it('resumes a failing subscription from the same event, with its event', async () => {
    const { id } = (await create({ url: targetUrl(), start: 'beginning' }).expect(201)).body.data;
    await t.db
      .updateTable('delivery_feeds')
      .set({ state: 'failing', attempts: 15, next_attempt_at: '2030-01-01T00:00:00.000Z', last_error: 'HTTP 500', cursor: 3 })
      .where('feed_id', '=', id)
      .execute();
    const data = (await post(`/v1/webhooks/${id}/resume`).expect(200)).body.data;
    assert.deepEqual([data.state, data.attempts, data.next_attempt_at, data.cursor], ['active', 0, null, 3]);
    const event = await newestEvent();
    assert.deepEqual([event.action, event.actor, JSON.parse(event.details as string).webhook_id], ['webhook.resume', ADMIRAL, id]);
  });

  it('rotates the secret: the new one shown once, the old one kept sealed to sign for 24 hours, with its event', async () => {
    const created = (await create({ url: targetUrl() }).expect(201)).body.data;
    const started = Date.now();
    const rotated = (await post(`/v1/webhooks/${created.id}/rotate-secret`).expect(200)).body.data;
    assert.deepEqual(Object.keys(rotated).sort(), ['id', 'previous_secret_until', 'secret']);
    assert.match(rotated.secret, SECRET);
    assert.notEqual(rotated.secret, created.secret);
    const until = Date.parse(rotated.previous_secret_until) - started;
    assert.ok(until > 23.9 * 3_600_000 && until <= 24 * 3_600_000 + 60_000, `${until} ms`);
    const row = await t.db.selectFrom('webhook_subscriptions').selectAll().where('feed_id', '=', created.id).executeTakeFirstOrThrow();
    assert.ok(row.previous_secret !== null);
    const dump = await dumpOf(created.id);
    for (const secret of [created.secret, rotated.secret]) {
      assert.ok(!dump.includes(secret.slice(6)), 'neither secret is stored in the clear');
    }
    assert.ok(!('secret' in (await get(`/v1/webhooks/${created.id}`).expect(200)).body.data));
    const event = await newestEvent();
    assert.deepEqual([event.action, event.actor, JSON.parse(event.details as string).webhook_id], ['webhook.rotate_secret', ADMIRAL, created.id]);
    assert.ok(!JSON.stringify(event).includes(rotated.secret.slice(6)));
  });

  it("lists a subscription's delivery attempts newest first, paged by limit and cursor", async () => {
    // A filter no event here matches: the dispatcher, which takes a new subscription at once, sends nothing, and the attempts listed are the test's own.
    const { id } = (await create({ url: targetUrl(), filter: { actions: ['decommission.expire'] } }).expect(201)).body.data;
    const attempt = (event_id: number, attempt: number, status: number | null, error: string | null) => ({
      feed_id: id,
      event_id,
      attempt,
      status,
      error,
      duration_ms: 12,
      attempted_at: new Date().toISOString(),
    });
    await t.db.insertInto('delivery_attempts').values([attempt(5, 1, 503, 'HTTP 503'), attempt(5, 2, null, 'timed out after 10000 ms'), attempt(5, 3, 204, null)]).execute();
    const page = (await get(`/v1/webhooks/${id}/deliveries?limit=2`).expect(200)).body.data;
    assert.deepEqual(
      page.deliveries.map(({ event_id, attempt, status, error, duration_ms }: Record<string, unknown>) => [event_id, attempt, status, error, duration_ms]),
      [
        [5, 3, 204, null, 12],
        [5, 2, null, 'timed out after 10000 ms', 12],
      ],
    );
    const rest = (await get(`/v1/webhooks/${id}/deliveries?limit=2&cursor=${page.next_cursor}`).expect(200)).body.data;
    assert.deepEqual(rest.deliveries.map(({ attempt }: { attempt: number }) => attempt), [1]);
    assert.equal(rest.next_cursor, null);
  });

  it('deletes a subscription with its feed and attempts, answering what it was, with its event', async () => {
    const { id } = (await create({ url: targetUrl() }).expect(201)).body.data;
    await t.db.insertInto('delivery_attempts').values({ feed_id: id, event_id: 1, attempt: 1, status: 204, error: null, duration_ms: 3, attempted_at: new Date().toISOString() }).execute();
    const res = await t.http().delete(`/v1/webhooks/${id}`).set('Authorization', admiral).expect(200);
    assert.deepEqual(Object.keys(res.body.data).sort(), WEBHOOK_KEYS.sort());
    assert.equal(res.body.data.id, id);
    for (const table of ['webhook_subscriptions', 'delivery_feeds', 'delivery_attempts'] as const) {
      assert.deepEqual(await t.db.selectFrom(table).select('feed_id').where('feed_id', '=', id).execute(), [], table);
    }
    const event = await newestEvent();
    assert.deepEqual([event.action, event.actor, JSON.parse(event.details as string)], ['webhook.delete', ADMIRAL, { webhook_id: id, url: sink.url('/hooks/fleet') }]);
    expectErrorBody(await get(`/v1/webhooks/${id}`), 404, 'WEBHOOK_NOT_FOUND');
  });

  it('refuses changes below clearance 9 and reads below 7, each refusal audited with the actor', async () => {
    const count = await subscriptionCount();
    expectErrorBody(await create({ url: targetUrl() }, t.bearer('officer-8', 8)), 403, 'CLEARANCE_INSUFFICIENT');
    let event = await newestEvent();
    assert.deepEqual([event.action, event.outcome, event.reason, event.actor], ['webhook.create', 'denied', 'CLEARANCE_INSUFFICIENT', 'officer-8']);
    assert.equal(await subscriptionCount(), count);
    expectErrorBody(await get('/v1/webhooks', t.bearer('officer-6', 6)), 403, 'CLEARANCE_INSUFFICIENT');
    event = await newestEvent();
    assert.deepEqual([event.action, event.outcome, event.reason, event.actor], ['webhook.read', 'denied', 'CLEARANCE_INSUFFICIENT', 'officer-6']);
    await get('/v1/webhooks', t.bearer('officer-7', 7)).expect(200);
  });

  it('leaves the trail intact: the webhook events, their details included, verify', async () => {
    const verified = (await get('/v1/audit/verify').expect(200)).body.data;
    assert.equal(verified.state, 'intact', JSON.stringify(verified));
    const listed = (await get('/v1/audit/events?action=webhook.create&outcome=allowed&limit=1').expect(200)).body.data.events;
    assert.deepEqual(Object.keys(listed[0].details), ['webhook_id', 'url']);
  });
});

describeEachDatabase('webhook subscriptions under other settings', (engine) => {
  it('refuses urls that reach this host or its networks with WEBHOOK_URL_FORBIDDEN naming url, and creates nothing', async () => {
    const t = await startTestApp({ engine });
    const subscriptionCount = async () => (await t.db.selectFrom('webhook_subscriptions').select('feed_id').execute()).length;
    const create = (body: object) => t.http().post('/v1/webhooks').set('Authorization', t.bearer(ADMIRAL, 9)).send(body);
    try {
      const count = await subscriptionCount();
      for (const [url, reason] of [
        ['http://93.184.215.14/hook', /^url must be https:\/\/; WEBHOOK_ALLOW_HTTP=true allows http:\/\/$/],
        ['https://localhost/hook', /^url resolves to (127\.0\.0\.1|::1), a loopback address; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it$/],
        ['https://127.0.0.1/hook', /^url names 127\.0\.0\.1, a loopback address/],
        ['https://[::1]:8443/hook', /^url names ::1, a loopback address/],
        ['https://10.1.2.3/hook', /^url names 10\.1\.2\.3, a private address/],
        ['https://169.254.169.254/latest/meta-data/', /^url names 169\.254\.169\.254, a metadata address/],
        ['https://[fd00::1]/hook', /^url names fd00::1, a unique-local address/],
        ['https://[::ffff:127.0.0.1]/hook', /^url names ::ffff:7f00:1, a loopback address/],
      ] as const) {
        const res = await create({ url });
        expectErrorBody(res, 400, 'WEBHOOK_URL_FORBIDDEN', 'url');
        assert.match(res.body.message, reason, url);
      }
      assert.equal(await subscriptionCount(), count);
    } finally {
      await t.close();
    }
  });

  it('accepts http and private addresses with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_NETWORKS', async () => {
    const t = await startTestApp({ engine, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    try {
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'https://[::1]/hook', 'https://10.1.2.3/', 'http://[::ffff:127.0.0.1]/']) {
        // A filter no event here matches: nothing is sent, to 10.1.2.3, off this machine, least of all.
        const filter = { actions: ['decommission.expire'] };
        await t.http().post('/v1/webhooks').set('Authorization', t.bearer(ADMIRAL, 9)).send({ url, filter }).expect(201);
      }
    } finally {
      await t.close();
    }
  });

  it('refuses one more subscription than WEBHOOK_SUBSCRIPTIONS_MAX with 409 WEBHOOK_LIMIT, creating nothing', async () => {
    const t = await startTestApp({ engine, env: { ...SINK_TEST_ENV, WEBHOOK_SUBSCRIPTIONS_MAX: '2' } });
    try {
      const create = () => t.http().post('/v1/webhooks').set('Authorization', t.bearer(ADMIRAL, 9)).send({ url: targetUrl() });
      await create().expect(201);
      await create().expect(201);
      expectErrorBody(await create(), 409, 'WEBHOOK_LIMIT');
      assert.equal((await t.db.selectFrom('delivery_feeds').select('feed_id').execute()).length, 2);
    } finally {
      await t.close();
    }
  });
});

describe('webhook subscriptions in production without WEBHOOK_SECRET_KEY_FILE', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() } });
  });
  after(() => t.close());

  it('answers 503 WEBHOOKS_UNAVAILABLE to a creation and a rotation, and still lists', async () => {
    const admiral = t.bearer(ADMIRAL, 9);
    expectErrorBody(await t.http().post('/v1/webhooks').set('Authorization', admiral).send({ url: PUBLIC_URL }), 503, 'WEBHOOKS_UNAVAILABLE');
    expectErrorBody(await t.http().post(`/v1/webhooks/${randomUUID()}/rotate-secret`).set('Authorization', admiral), 503, 'WEBHOOKS_UNAVAILABLE');
    await t.http().get('/v1/webhooks').set('Authorization', admiral).expect(200);
  });
});

describe('a webhook secret in a server process', () => {
  it('is generated a key beside the SQLite file, mode 0600, and the secrets appear in no log line', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-webhook-secret-'));
    const JWT_SECRET = 'webhook-secret-test-secret-of-32-chars-or-more';
    const server = await startServer({ cwd, env: { ...SINK_TEST_ENV, JWT_SECRET, DATABASE_URL: 'sqlite:registry.sqlite', SEED_DEMO: 'false', LOG_LEVEL: 'debug' } });
    try {
      const headers = { Authorization: `Bearer ${tokenServiceFor({ JWT_SECRET }).issue(ADMIRAL, 9, '1h')}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${server.url}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: targetUrl() }) });
      assert.equal(created.status, 201);
      const { id, secret } = ((await created.json()) as { data: { id: string; secret: string } }).data;
      const rotated = await fetch(`${server.url}/v1/webhooks/${id}/rotate-secret`, { method: 'POST', headers });
      const { secret: next } = ((await rotated.json()) as { data: { secret: string } }).data;
      assert.equal(statSync(join(cwd, 'registry.sqlite.webhook-secret.key')).mode & 0o777, 0o600);
      await server.stop();
      for (const shown of [secret, next]) {
        assert.ok(!server.output().includes(shown.slice('whsec_'.length)), 'no log line holds a secret');
      }
    } finally {
      await server.stop();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
