import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AuditEventRow, countRows } from '../src/database';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { decommission, expectErrorBody, itRefusesInvalidPaging, listAuditEvents, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const EVENTS = '/v1/audit/events';
const EVENT_KEYS = [
  'action',
  'actor',
  'actor_clearance',
  'asset_id',
  'details',
  'hash',
  'id',
  'ip',
  'leaf_hash',
  'method',
  'occurred_at',
  'outcome',
  'path',
  'prev_hash',
  'reason',
  'request_id',
].sort();
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeEachDatabase('GET /v1/audit/events', (engine) => {
  let t: TestApp;
  let admiral: string;

  const listOk = async (query = '') => {
    const res = await listAuditEvents(t, query, admiral).expect(200);
    assert.equal(res.body.status, 'success');
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'status']);
    assert.deepEqual(Object.keys(res.body.data), ['events', 'total_count', 'page', 'per_page', 'next_cursor']);
    // Cursors are test/audit-query.e2e-spec.ts's subject.
    const data = { ...res.body.data };
    delete data.next_cursor;
    return data as { events: AuditEventRow[]; total_count: number; page: number; per_page: number };
  };
  const clearEvents = () => t.db.deleteFrom('audit_events').execute();
  const lastEvent = () => t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  const eventCount = () => countRows(t.db, 'audit_events');

  before(async () => {
    t = await startTestApp({ engine });
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  describe('clearance', () => {
    it('refuses clearance 6 with 403 CLEARANCE_INSUFFICIENT and records the refusal as audit.read', async () => {
      const countBefore = await eventCount();
      const res = await listAuditEvents(t, '', t.bearer('lieutenant-6', 6));
      expectErrorBody(res, 403, 'CLEARANCE_INSUFFICIENT');

      assert.equal(await eventCount(), countBefore + 1);
      const event = await lastEvent();
      assert.equal(event.action, 'audit.read');
      assert.equal(event.outcome, 'denied');
      assert.equal(event.reason, 'CLEARANCE_INSUFFICIENT');
      assert.equal(event.actor, 'lieutenant-6');
      assert.equal(event.actor_clearance, 6);
      assert.equal(event.asset_id, null);
      assert.equal(event.method, 'GET');
      assert.equal(event.path, EVENTS);
      assert.equal(event.request_id, res.headers['x-request-id']);
      assert.ok(event.ip);
    });

    it('refuses clearance 0 the same way', async () => {
      expectErrorBody(await listAuditEvents(t, '', t.bearer('cadet-0', 0)), 403, 'CLEARANCE_INSUFFICIENT');
      const event = await lastEvent();
      assert.deepEqual(
        [event.action, event.reason, event.actor, event.actor_clearance],
        ['audit.read', 'CLEARANCE_INSUFFICIENT', 'cadet-0', 0],
      );
    });

    it('lets clearance 7 and 10 read', async () => {
      await listAuditEvents(t, '', admiral).expect(200);
      await listAuditEvents(t, '', t.bearer('grand-moff', 10)).expect(200);
    });

    it('checks clearance before the query: clearance 6 with an invalid query still gets 403', async () => {
      expectErrorBody(await listAuditEvents(t, 'limit=0&bogus=1', t.bearer('lieutenant-6', 6)), 403, 'CLEARANCE_INSUFFICIENT');
    });
  });

  describe('events produced by real requests', () => {
    const requestIds: Record<string, string> = {};

    before(async () => {
      await clearEvents();
      const allowed = await decommission(t, 'TIE-0001', admiral).set('X-Request-Id', 'caller-chosen-id-1').expect(200);
      requestIds.allowed = allowed.headers['x-request-id'];
      const cadet = await decommission(t, 'TIE-0002', t.bearer('cadet-3', 3)).expect(403);
      requestIds.cadet = cadet.headers['x-request-id'];
      const unknown = await decommission(t, 'XYZ-9999', admiral).expect(404);
      requestIds.unknown = unknown.headers['x-request-id'];
      const anonymous = await listFleet(t, '').expect(401);
      requestIds.anonymous = anonymous.headers['x-request-id'];
      const anonymousAsset = await t.http().get('/api/v1/assets/EQP-0001').expect(401);
      requestIds.anonymousAsset = anonymousAsset.headers['x-request-id'];
    });

    const expected = () => [
      {
        action: 'auth.authenticate',
        outcome: 'denied',
        reason: 'TOKEN_MISSING',
        actor: null,
        actor_clearance: null,
        asset_id: 'EQP-0001',
        request_id: requestIds.anonymousAsset,
        method: 'GET',
        path: '/api/v1/assets/EQP-0001',
        details: null,
      },
      {
        action: 'auth.authenticate',
        outcome: 'denied',
        reason: 'TOKEN_MISSING',
        actor: null,
        actor_clearance: null,
        asset_id: null,
        request_id: requestIds.anonymous,
        method: 'GET',
        path: '/v1/fleet/star-destroyers',
        details: null,
      },
      {
        action: 'asset.decommission',
        outcome: 'denied',
        reason: 'ASSET_NOT_FOUND',
        actor: 'admiral-7',
        actor_clearance: 7,
        asset_id: 'XYZ-9999',
        request_id: requestIds.unknown,
        method: 'DELETE',
        path: '/v1/assets/XYZ-9999',
        details: null,
      },
      {
        action: 'asset.decommission',
        outcome: 'denied',
        reason: 'CLEARANCE_INSUFFICIENT',
        actor: 'cadet-3',
        actor_clearance: 3,
        asset_id: 'TIE-0002',
        request_id: requestIds.cadet,
        method: 'DELETE',
        path: '/v1/assets/TIE-0002',
        details: null,
      },
      {
        action: 'asset.decommission',
        outcome: 'allowed',
        reason: null,
        actor: 'admiral-7',
        actor_clearance: 7,
        asset_id: 'TIE-0001',
        request_id: 'caller-chosen-id-1',
        method: 'DELETE',
        path: '/v1/assets/TIE-0001',
        details: DECOMMISSION_BODY,
      },
    ];
    const withoutGeneratedFields = (events: AuditEventRow[]) =>
      events.map((event) => {
        const rest: Partial<AuditEventRow> = { ...event };
        delete rest.id;
        delete rest.occurred_at;
        delete rest.ip;
        delete rest.prev_hash;
        delete rest.hash;
        delete rest.leaf_hash;
        return rest;
      });

    it('lists exactly those events, newest first, with the recorded fields', async () => {
      const data = await listOk();
      assert.equal(data.total_count, 5);
      assert.equal(data.page, 1);
      assert.equal(data.per_page, 10);
      assert.deepEqual(withoutGeneratedFields(data.events), expected());
      for (const event of data.events) {
        assert.equal(typeof event.ip, 'string');
        assert.ok(event.ip);
        assert.match(event.occurred_at, ISO_TIME);
      }
    });

    it('gives every event exactly the documented keys', async () => {
      const { events } = await listOk();
      assert.ok(events.length > 0);
      for (const event of events) {
        assert.deepEqual(Object.keys(event).sort(), EVENT_KEYS);
        assert.ok(Number.isInteger(event.id));
      }
    });

    it('orders by id descending with occurred_at never increasing', async () => {
      const { events } = await listOk();
      for (let i = 1; i < events.length; i++) {
        assert.ok(events[i - 1].id > events[i].id, 'ids descend');
        assert.ok(events[i - 1].occurred_at >= events[i].occurred_at, 'occurred_at does not increase');
      }
    });

    it('echoes a caller-supplied X-Request-Id in the response and in request_id', async () => {
      assert.equal(requestIds.allowed, 'caller-chosen-id-1');
      const { events } = await listOk('outcome=allowed');
      assert.equal(events[0].request_id, 'caller-chosen-id-1');
    });

    it('returns the rows as stored in the database', async () => {
      const { events } = await listOk();
      const rows = await t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').execute();
      assert.deepEqual(
        events,
        rows.map((row) => {
          // The listing shows the leaf's hash, not its position, which the inclusion proof gives.
          const shown: Partial<AuditEventRow> = { ...row };
          delete shown.leaf_index;
          return { ...shown, details: row.details === null ? null : JSON.parse(row.details) };
        }),
      );
    });

    it('does not record successful reads of the audit log', async () => {
      const countBefore = await eventCount();
      await listOk();
      assert.equal(await eventCount(), countBefore);
    });

    describe('filters', () => {
      const filtered = async (query: string) => {
        const data = await listOk(query);
        return { total: data.total_count, events: withoutGeneratedFields(data.events) };
      };

      it('filters by outcome=allowed', async () => {
        const { total, events } = await filtered('outcome=allowed');
        assert.equal(total, 1);
        assert.deepEqual(events, expected().filter((e) => e.outcome === 'allowed'));
      });

      it('filters by outcome=denied', async () => {
        const { total, events } = await filtered('outcome=denied');
        assert.equal(total, 4);
        assert.deepEqual(events, expected().filter((e) => e.outcome === 'denied'));
      });

      it('filters by asset_id', async () => {
        for (const assetId of ['TIE-0001', 'TIE-0002', 'XYZ-9999', 'EQP-0001']) {
          const { total, events } = await filtered(`asset_id=${assetId}`);
          assert.equal(total, 1);
          assert.deepEqual(events, expected().filter((e) => e.asset_id === assetId));
        }
        const none = await filtered('asset_id=FAC-0001');
        assert.deepEqual(none, { total: 0, events: [] });
      });

      it('combines outcome and asset_id', async () => {
        const denied = await filtered('outcome=denied&asset_id=TIE-0002');
        assert.equal(denied.total, 1);
        assert.deepEqual(denied.events, expected().filter((e) => e.asset_id === 'TIE-0002'));
        assert.deepEqual(await filtered('outcome=allowed&asset_id=TIE-0002'), { total: 0, events: [] });
        assert.deepEqual(await filtered('outcome=denied&asset_id=TIE-0001'), { total: 0, events: [] });
        const allowed = await filtered('asset_id=TIE-0001&outcome=allowed');
        assert.equal(allowed.total, 1);
        assert.equal(allowed.events[0].request_id, 'caller-chosen-id-1');
      });

      it('combines a filter with paging: total_count counts every match, not the page', async () => {
        const data = await listOk('outcome=denied&limit=3');
        assert.equal(data.total_count, 4);
        assert.equal(data.per_page, 3);
        assert.deepEqual(withoutGeneratedFields(data.events), expected().filter((e) => e.outcome === 'denied').slice(0, 3));
        const second = await listOk('outcome=denied&limit=3&page=2');
        assert.equal(second.total_count, 4);
        assert.equal(second.page, 2);
        assert.deepEqual(withoutGeneratedFields(second.events), expected().filter((e) => e.outcome === 'denied').slice(3));
      });
    });
  });

  describe('paging', () => {
    const TOTAL = 23;
    const FILTERED = 8; // i % 3 === 0 for i in 0..22
    const ids = (events: AuditEventRow[]) => events.map((e) => e.request_id);
    const seq = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => `seq-${from - i}`);

    before(async () => {
      await clearEvents();
      for (let i = 0; i < TOTAL; i++) {
        if (i % 3 === 0) {
          await decommission(t, 'XYZ-9999', admiral).set('X-Request-Id', `seq-${i}`).expect(404);
        } else {
          await listFleet(t, '').set('X-Request-Id', `seq-${i}`).expect(401);
        }
      }
    });

    it('returns the first 10 events by default, page 1, per_page 10, with the total count', async () => {
      const data = await listOk();
      assert.deepEqual({ ...data, events: ids(data.events) }, { events: seq(22, 13), total_count: TOTAL, page: 1, per_page: 10 });
    });

    it('walks the pages newest first', async () => {
      const second = await listOk('page=2');
      assert.deepEqual({ ...second, events: ids(second.events) }, { events: seq(12, 3), total_count: TOTAL, page: 2, per_page: 10 });
      const third = await listOk('page=3');
      assert.deepEqual({ ...third, events: ids(third.events) }, { events: seq(2, 0), total_count: TOTAL, page: 3, per_page: 10 });
    });

    it('answers a page past the end with an empty list and the right total_count', async () => {
      assert.deepEqual(await listOk('page=4'), { events: [], total_count: TOTAL, page: 4, per_page: 10 });
      assert.deepEqual(await listOk('page=1000&limit=100'), { events: [], total_count: TOTAL, page: 1000, per_page: 100 });
    });

    it('honours limit, and per_page is the effective limit', async () => {
      const one = await listOk('limit=1');
      assert.deepEqual({ ...one, events: ids(one.events) }, { events: ['seq-22'], total_count: TOTAL, page: 1, per_page: 1 });
      const all = await listOk('limit=100');
      assert.deepEqual({ ...all, events: ids(all.events) }, { events: seq(22, 0), total_count: TOTAL, page: 1, per_page: 100 });
      const middle = await listOk('limit=5&page=3');
      assert.deepEqual({ ...middle, events: ids(middle.events) }, { events: seq(12, 8), total_count: TOTAL, page: 3, per_page: 5 });
    });

    it('counts only the matching events in total_count when filtering', async () => {
      const first = await listOk('asset_id=XYZ-9999&limit=5');
      assert.deepEqual({ ...first, events: ids(first.events) }, {
        events: ['seq-21', 'seq-18', 'seq-15', 'seq-12', 'seq-9'],
        total_count: FILTERED,
        page: 1,
        per_page: 5,
      });
      const second = await listOk('asset_id=XYZ-9999&limit=5&page=2');
      assert.deepEqual(ids(second.events), ['seq-6', 'seq-3', 'seq-0']);
      assert.equal(second.total_count, FILTERED);
      assert.deepEqual(await listOk('outcome=allowed'), { events: [], total_count: 0, page: 1, per_page: 10 });
      assert.equal((await listOk('outcome=denied')).total_count, TOTAL);
    });
  });

  describe('query validation', () => {
    const rejects = async (query: string, field: string) =>
      expectErrorBody(await listAuditEvents(t, query, admiral), 400, 'VALIDATION_ERROR', field);

    itRefusesInvalidPaging(rejects);

    it('refuses an outcome other than allowed or denied', async () => {
      for (const outcome of ['ALLOWED', 'maybe', '', 'allowed,denied']) {
        await rejects(`outcome=${outcome}`, 'outcome');
      }
      await rejects('outcome=allowed&outcome=denied', 'outcome');
    });

    it('refuses an asset_id that does not match ^[A-Z]{3}-[0-9]{4}$', async () => {
      for (const assetId of ['tie-0001', 'TIE-001', 'TIEX-0001', 'TIE_0001', 'TIE-00011', '']) {
        await rejects(`asset_id=${assetId}`, 'asset_id');
      }
    });

    it('refuses unknown query parameters, naming them', async () => {
      await rejects('sector=Outer%20Rim', 'sector');
      await rejects('limit=5&officer=admiral-7', 'officer');
    });
  });

  describe('client address', () => {
    const forwarded = async (app: TestApp) => {
      await listFleet(app, '').set('X-Forwarded-For', '203.0.113.7');
      return (await app.db.selectFrom('audit_events').select('ip').orderBy('id', 'desc').executeTakeFirstOrThrow()).ip;
    };

    it('records the connecting address and ignores X-Forwarded-For by default', async () => {
      assert.notEqual(await forwarded(t), '203.0.113.7');
    });

    it('records the address a trusted proxy forwarded when TRUST_PROXY=1', async () => {
      const behindProxy = await startTestApp({ engine, env: { TRUST_PROXY: '1' } });
      try {
        assert.equal(await forwarded(behindProxy), '203.0.113.7');
      } finally {
        await behindProxy.close();
      }
    });

    it('records the address forwarded through proxies listed by address or CIDR range', async () => {
      const behindProxy = await startTestApp({ engine, env: { TRUST_PROXY: '127.0.0.0/8,::1' } });
      try {
        assert.equal(await forwarded(behindProxy), '203.0.113.7');
      } finally {
        await behindProxy.close();
      }
    });

    it('refuses with 400 a forwarded chain holding anything but IP addresses, and records no event of it', async () => {
      const behindProxy = await startTestApp({ engine, env: { TRUST_PROXY: '1' } });
      try {
        const before = await countRows(behindProxy.db, 'audit_events');
        for (const chain of ['<script>alert(1)</script>', '203.0.113.7, <script>', 'unknown, 203.0.113.7', '203.0.113.7:8080', '', ' , ']) {
          const res = await listFleet(behindProxy, '').set('X-Forwarded-For', chain);
          expectErrorBody(res, 400, 'VALIDATION_ERROR');
          assert.match(res.body.message, /X-Forwarded-For/);
        }
        assert.equal(await countRows(behindProxy.db, 'audit_events'), before);
        assert.equal(await forwarded(behindProxy), '203.0.113.7');
        const ips = await behindProxy.db.selectFrom('audit_events').select('ip').execute();
        assert.ok(ips.every(({ ip }) => ip === null || isIP(ip) !== 0), JSON.stringify(ips));
      } finally {
        await behindProxy.close();
      }
    });
  });
});
