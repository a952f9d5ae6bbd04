import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Response, Test } from 'supertest';
import { DECOMMISSION_BODY, RECOMMISSION_BODY } from './fixtures';
import type { TestApp } from './test-app';

/** What every asset route answers an absent asset and an officer below clearance 7 alike. */
export const ACCESS_DENIED = {
  status: 'error',
  message: 'Asset not found or clearance insufficient',
  error_code: 'ASSET_ACCESS_DENIED',
};

/** The asset's audit events, in chain order, as stored. */
export const auditEventsOf = (t: TestApp, assetId: string) =>
  t.db.selectFrom('audit_events').selectAll().where('asset_id', '=', assetId).orderBy('id').execute();

/** The asset's row, as stored. */
export const assetRowOf = (t: TestApp, assetId: string) => t.db.selectFrom('assets').selectAll().where('asset_id', '=', assetId).executeTakeFirstOrThrow();

/**
 * The one error body of the contract: `status` is the HTTP status, the body is exactly
 * {status: 'error', message, error_code} with a non-empty message, and it gives nothing of the
 * implementation away. With `field`, the message names that field.
 */
export function expectErrorBody(res: Response, status: number, errorCode: string, field?: string): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), ['error_code', 'message', 'status'], res.text);
  assert.equal(res.body.status, 'error');
  assert.equal(res.body.error_code, errorCode, res.text);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0);
  if (field !== undefined) {
    assert.match(res.body.message, new RegExp(`\\b${field}\\b`), `message names ${field}: ${res.body.message}`);
  }
  assert.doesNotMatch(res.text, /\bat [\w.<>]+ \(|\\n\s*at /, 'no stack frames');
  assert.doesNotMatch(res.text, /\.(ts|js):\d/, 'no source paths');
  assert.doesNotMatch(res.text, /select .* from|insert into|update \w+ set|delete from|no such table|sqlite/i, 'no SQL');
}

function authorized(req: Test, authorization: string | undefined): Test {
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

/** `query` is the query string without its `?`, sent as written so tests can send malformed ones. */
function withQuery(path: string, query: string): string {
  return query ? `${path}?${query}` : path;
}

/**
 * DELETE /v1/assets/:assetId. A string body is sent as raw JSON text, so tests can send malformed
 * or oversized bodies.
 */
export function decommission(t: TestApp, assetId: string, authorization?: string, body: object | string = DECOMMISSION_BODY): Test {
  const req = authorized(t.http().delete(`/v1/assets/${assetId}`), authorization);
  return typeof body === 'string' ? req.set('Content-Type', 'application/json').send(body) : req.send(body);
}

/** POST /v1/assets/:assetId/recommission; a string body is sent as raw JSON text. */
export function recommission(t: TestApp, assetId: string, authorization?: string, body: object | string = RECOMMISSION_BODY): Test {
  const req = authorized(t.http().post(`/v1/assets/${assetId}/recommission`), authorization);
  return typeof body === 'string' ? req.set('Content-Type', 'application/json').send(body) : req.send(body);
}

/** POST /v1/decommission-requests/:requestId/{approve,reject,withdraw}. */
export function decideRequest(t: TestApp, requestId: string, decision: 'approve' | 'reject' | 'withdraw', authorization?: string): Test {
  return authorized(t.http().post(`/v1/decommission-requests/${requestId}/${decision}`), authorization);
}

export function listDecommissionRequests(t: TestApp, query: string, authorization?: string): Test {
  return authorized(t.http().get(withQuery('/v1/decommission-requests', query)), authorization);
}

export function listFleet(t: TestApp, query: string, authorization?: string): Test {
  return authorized(t.http().get(withQuery('/v1/fleet/star-destroyers', query)), authorization);
}

export function getAsset(t: TestApp, assetId: string, authorization?: string): Test {
  return authorized(t.http().get(`/v1/assets/${assetId}`), authorization);
}

export function listAssets(t: TestApp, query: string, authorization?: string): Test {
  return authorized(t.http().get(withQuery('/v1/assets', query)), authorization);
}

export function listAuditEvents(t: TestApp, query: string, authorization?: string): Test {
  return authorized(t.http().get(withQuery('/v1/audit/events', query)), authorization);
}

export function verifyAuditChain(t: TestApp, authorization?: string): Test {
  return authorized(t.http().get('/v1/audit/verify'), authorization);
}

/**
 * The paging query every listing shares, refused per route since each route declares its own query:
 * `rejects(query, field)` sends the query and expects a 400 VALIDATION_ERROR naming the field.
 */
export function itRefusesInvalidPaging(rejects: (query: string, field: string) => Promise<void>): void {
  it('refuses a limit that is not an integer from 1 to 100 with 400 VALIDATION_ERROR naming limit', async () => {
    for (const limit of ['0', '101', '-1', '1.5', 'abc', '']) {
      await rejects(`limit=${limit}`, 'limit');
    }
  });

  it('refuses a page that is not an integer of at least 1 with 400 VALIDATION_ERROR naming page', async () => {
    for (const page of ['0', '-1', '1.5', 'x']) {
      await rejects(`page=${page}`, 'page');
    }
  });

  it('refuses offset, which is not a query parameter, with 400 VALIDATION_ERROR rather than 500', async () => {
    await rejects('offset=5', 'offset');
  });
}
