import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Logger } from '@nestjs/common';
import { describeEachDatabase, failAuditEvents } from './support/databases';
import { decommission, expectErrorBody, getAsset, listAuditEvents, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

/** Whatever a refused request carries, its denial is on the record, the same on both engines. */
describeEachDatabase('every denial on the record', (engine) => {
  let t: TestApp;
  let lieutenant: string;
  const forged = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

  const lastEvent = () => t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

  before(async () => {
    Logger.overrideLogger(false);
    t = await startTestApp({ engine });
    lieutenant = t.bearer('lieutenant-3', 3);
  });
  after(() => t.close());

  const callers: Array<[string, () => string | undefined, number]> = [
    ['no token', () => undefined, 401],
    ['a forged token', () => forged, 401],
    ['clearance 3', () => lieutenant, 403],
  ];

  for (const [who, authorization, expected] of callers) {
    it(`records a path carrying a NUL byte with ${who} (${expected}), the NUL escaped`, async () => {
      const res = await decommission(t, '%00', authorization());

      assert.equal(res.status, expected);
      const event = await lastEvent();
      assert.equal(event.request_id, res.headers['x-request-id']);
      assert.equal(event.outcome, 'denied');
      assert.equal(event.asset_id, '\\u0000');
      assert.equal(event.path, '/v1/assets/%00');
    });

    it(`records an asset id of 5,000 characters with ${who} (${expected}), cut with a marker`, async () => {
      const res = await decommission(t, 'A'.repeat(5000), authorization());

      assert.equal(res.status, expected);
      const event = await lastEvent();
      assert.equal(event.request_id, res.headers['x-request-id']);
      assert.ok(event.asset_id && event.asset_id.length <= 64, `asset_id of ${event.asset_id?.length} characters`);
      assert.match(event.asset_id, /^A+…\[\+\d+ chars\]$/);
      assert.ok(event.path.length <= 1024, `path of ${event.path.length} characters`);
      assert.match(event.path, /^\/v1\/assets\/A+…\[\+\d+ chars\]$/);
    });
  }

  it('stores a 15 KB path in at most 1,024 characters', async () => {
    const res = await getAsset(t, 'x'.repeat(15_000)).expect(401);

    const event = await lastEvent();
    assert.equal(event.request_id, res.headers['x-request-id']);
    assert.ok(event.path.length <= 1024);
  });

  it('stores an unpaired surrogate in a token subject as U+FFFD', async () => {
    const res = await listAuditEvents(t, '', t.bearer('cadet-\ud800', 2)).expect(403);

    const event = await lastEvent();
    assert.equal(event.request_id, res.headers['x-request-id']);
    assert.equal(event.actor, 'cadet-\ufffd');
  });

  it('answers 503, never the 401, when the denial cannot be written', async () => {
    const restore = await failAuditEvents(t.db, engine, 'denied');
    try {
      expectErrorBody(await listFleet(t, ''), 503, 'SERVICE_UNAVAILABLE');
      expectErrorBody(await decommission(t, 'TIE-0001', lieutenant), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await restore();
    }
    expectErrorBody(await listFleet(t, ''), 401, 'UNAUTHENTICATED');
  });
});
