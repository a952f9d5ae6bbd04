import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AuditEventRow } from '../src/database';
import { describeEachDatabase } from './support/databases';
import { expectErrorBody, listFleet } from './support/http';
import { openStream, type SseFrame, type SseStream } from './support/sse';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';

const STREAM = '/v1/audit/events/stream';
const eventOf = (frame: SseFrame) => JSON.parse(frame.data ?? 'null') as AuditEventRow;

describeEachDatabase('GET /v1/audit/events/stream', (engine) => {
  let t: TestApp;
  let base: string;
  let admiral: string;
  const open: SseStream[] = [];

  const stream = async (query = '', headers: Record<string, string> = {}, authorization = admiral) => {
    const opened = await openStream(`${base}${STREAM}${query ? `?${query}` : ''}`, { Authorization: authorization, ...headers });
    open.push(opened);
    return opened;
  };
  /** A denied request: one new event, auth.authenticate. */
  const appendOne = async (requestId: string) => {
    await listFleet(t, '').set('X-Request-Id', requestId).expect(401);
  };
  const newestIds = async (count: number) =>
    (await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').limit(count).execute()).map((row) => row.id).reverse();

  before(async () => {
    t = await startTestApp({ engine });
    base = await listenOnLoopback(t);
    admiral = t.bearer('admiral-7', 7);
  });
  after(async () => {
    open.forEach((opened) => opened.close());
    await t.close();
  });

  it('refuses clearance 6 with 403 CLEARANCE_INSUFFICIENT, recorded as audit.read, and no token with 401', async () => {
    const refused = await stream('', {}, t.bearer('lieutenant-6', 6));
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(await refused.text()).error_code, 'CLEARANCE_INSUFFICIENT');
    const event = await t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    assert.deepEqual([event.action, event.outcome, event.reason, event.path], ['audit.read', 'denied', 'CLEARANCE_INSUFFICIENT', STREAM]);
    expectErrorBody(await t.http().get(STREAM), 401, 'UNAUTHENTICATED');
  });

  it('answers text/event-stream and sends each new event as id, event: audit and the event as the listing shows it', async () => {
    const live = await stream();
    assert.equal(live.status, 200);
    assert.match(live.headers.get('content-type') ?? '', /^text\/event-stream/);
    await appendOne('stream-live-1');
    const [frame] = await live.take(1);
    assert.ok(frame, 'an event arrives');
    const stored = await t.db.selectFrom('audit_events').selectAll().where('request_id', '=', 'stream-live-1').executeTakeFirstOrThrow();
    assert.equal(frame.id, String(stored.id));
    assert.equal(frame.event, 'audit');
    const shown: Partial<typeof stored> = { ...stored };
    delete shown.leaf_index;
    assert.deepEqual(eventOf(frame), shown);
    assert.deepEqual(Object.keys(eventOf(frame)), Object.keys((await t.http().get('/v1/audit/events?limit=1').set('Authorization', admiral)).body.data.events[0]));
  });

  it('takes the listing\'s filters', async () => {
    const filtered = await stream('action=auth.authenticate&outcome=denied&actor=nobody-at-all');
    const byOutcome = await stream('outcome=denied&action=auth.authenticate');
    await appendOne('stream-filter-1');
    const [frame] = await byOutcome.take(1);
    assert.equal(eventOf(frame).request_id, 'stream-filter-1');
    assert.deepEqual(await filtered.take(1, 600), []);
  });

  it('replays after Last-Event-ID, or ?after=, then goes live: in order, no gap, no duplicate', async () => {
    for (const resume of ['Last-Event-ID', 'after']) {
      for (let i = 0; i < 5; i++) {
        await appendOne(`stream-replay-${resume}-${i}`);
      }
      const ids = await newestIds(5);
      const resumed = resume === 'after' ? await stream(`after=${ids[1]}`) : await stream('', { 'Last-Event-ID': String(ids[1]) });
      assert.deepEqual((await resumed.take(3)).map((frame) => Number(frame.id)), ids.slice(2));
      await appendOne(`stream-after-replay-${resume}`);
      const [next] = await resumed.take(1);
      assert.equal(Number(next.id), ids[4] + 1);
      assert.deepEqual(await resumed.take(1, 500), [], 'nothing twice');
    }
  });

  it('refuses a malformed Last-Event-ID, after or filter with 400 naming it', async () => {
    for (const [query, headers, field] of [
      ['', { 'Last-Event-ID': 'abc' }, 'Last-Event-ID'],
      ['after=-1', {}, 'after'],
      ['since=yesterday', {}, 'since'],
      ['cursor=ZTQy', {}, 'cursor'],
    ] as const) {
      const refused = await stream(query, headers);
      assert.equal(refused.status, 400, field);
      assert.match(JSON.parse(await refused.text()).message, new RegExp(field));
    }
  });

  it('limits the streams an officer holds at once: the sixth is 429 RATE_LIMITED', async () => {
    const officer = t.bearer('stream-hoarder', 7);
    for (let i = 0; i < 5; i++) {
      assert.equal((await stream('', {}, officer)).status, 200);
    }
    const sixth = await stream('', {}, officer);
    assert.equal(sixth.status, 429);
    assert.equal(JSON.parse(await sixth.text()).error_code, 'RATE_LIMITED');
    assert.equal((await stream('', {}, t.bearer('someone-else', 7))).status, 200);
  });

  it('disconnects a consumer that stops reading, before its unsent events grow without bound', async () => {
    const big: AuditEventRow[] = Array.from({ length: 4_000 }, (_, index) => ({
      id: 1_000_000 + index,
      occurred_at: '2030-01-01T00:00:00.000Z',
      action: 'auth.authenticate',
      outcome: 'denied' as const,
      reason: 'TOKEN_MISSING',
      actor: null,
      actor_clearance: null,
      asset_id: null,
      request_id: `flood-${index}`,
      ip: '127.0.0.1',
      method: 'GET',
      path: `/${'x'.repeat(1000)}`,
      prev_hash: '0'.repeat(64),
      hash: '1'.repeat(64),
      leaf_hash: 'bGVhZg==',
      leaf_index: index,
      details: null,
    }));
    for (let from = 0; from < big.length; from += 500) {
      await t.db.insertInto('audit_events').values(big.slice(from, from + 500)).execute();
    }
    const officer = t.bearer('slow-reader', 7);
    const socket = connect((t.app.getHttpServer().address() as AddressInfo).port, '127.0.0.1');
    socket.pause();
    const closed = new Promise<boolean>((resolve) => {
      socket.on('close', () => resolve(true));
      socket.on('error', () => resolve(true));
      setTimeout(() => resolve(false), 30_000);
    });
    socket.write(`GET ${STREAM}?after=999999 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${officer}\r\n\r\n`);
    // The server drops it: the officer can then open all five of its streams again.
    let freed = false;
    for (let attempt = 0; attempt < 150 && !freed; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const probes = [];
      for (let i = 0; i < 5; i++) {
        probes.push(await stream('', {}, officer));
      }
      freed = probes.every((probe) => probe.status === 200);
      probes.forEach((probe) => probe.close());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(freed, 'the slow consumer no longer holds a stream');
    socket.resume();
    assert.ok(await closed, 'its connection is closed');
    await t.db.deleteFrom('audit_events').where('id', '>=', 1_000_000).execute();
  });

  if (engine === 'sqlite') {
    it('sends a comment line every 15 s to keep proxies from closing it', async () => {
      const quiet = await stream('actor=nobody-at-all');
      const [comment] = await quiet.take(1, 16_500, (frame) => frame.comment !== undefined);
      assert.equal(comment?.comment, 'keep-alive');
    });
  }
});

describe('a draining instance ends its streams', () => {
  it('ends every open stream when the application shuts down, and they can resume elsewhere', async () => {
    const t = await startTestApp();
    const base = await listenOnLoopback(t);
    const opened = await openStream(`${base}${STREAM}`, { Authorization: t.bearer('admiral-7', 7) });
    assert.equal(opened.status, 200);
    const closing = t.close();
    assert.ok(await opened.ended(5_000), 'the stream ended');
    await closing;
  });
});
