import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import type { Response, Test } from 'supertest';
import {
  ASSET_ACTIONS,
  ASSET_DENIAL_REASONS,
  DECOMMISSION_REQUEST_ACTIONS,
  DECOMMISSION_REQUEST_DENIAL_REASONS,
} from '../src/assets/assets.vocabulary';
import { AUDIT_MODULE_ACTIONS } from '../src/audit/audit.vocabulary';
import { AUTH_ACTIONS, AUTH_DENIAL_REASONS } from '../src/auth';
import { WEBHOOK_ACTIONS } from '../src/delivery/delivery.vocabulary';
import { RATE_LIMITED_REASON } from '../src/rate-limit';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { decideRequest, decommission, expectErrorBody, getAsset, recommission } from './support/http';
import { concretePath, isPublic, type Route, routesOf } from './support/openapi';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';
import { signHs256 } from './support/tokens';

/**
 * Every refusal is an audited denial by its type (an AuditedDenial), recorded once by the exception
 * filter. This walks every operation of the OpenAPI document the service serves, sends each refusal
 * that operation can give, and checks that exactly one denial is recorded, with its action, reason,
 * actor and asset: a new route, or a new refusal of one, is walked without editing this test, and a
 * cleared route must say here which action its refusals are recorded under.
 */

/** The action each cleared operation's refusals are recorded under, as its @RequiresClearance declares it. */
const ROUTE_ACTIONS: Record<string, string> = {
  'DELETE /v1/assets/{asset_id}': 'asset.decommission',
  'POST /v1/assets/decommissions': 'asset.decommission',
  'GET /v1/assets/{asset_id}': 'asset.read',
  'POST /v1/assets/{asset_id}/recommission': 'asset.recommission',
  'GET /v1/assets': 'asset.read',
  'GET /v1/decommission-requests': 'decommission.read',
  'GET /v1/decommission-requests/{request_id}': 'decommission.read',
  'POST /v1/decommission-requests/{request_id}/approve': 'decommission.approve',
  'POST /v1/decommission-requests/{request_id}/reject': 'decommission.reject',
  'POST /v1/decommission-requests/{request_id}/withdraw': 'decommission.withdraw',
  'GET /v1/audit/events': 'audit.read',
  'GET /v1/audit/events/stream': 'audit.read',
  'GET /v1/audit/verify': 'audit.verify',
  'GET /v1/audit/checkpoint': 'audit.read',
  'GET /v1/audit/checkpoint/verifier-key': 'audit.read',
  'GET /v1/audit/events/{id}/inclusion-proof': 'audit.read',
  'GET /v1/audit/consistency-proof': 'audit.read',
  'GET /v1/audit/tile/{level}/{path}': 'audit.read',
  'GET /v1/audit/tile/entries/{path}': 'audit.read',
  'POST /v1/webhooks': 'webhook.create',
  'GET /v1/webhooks': 'webhook.read',
  'GET /v1/webhooks/{id}': 'webhook.read',
  'DELETE /v1/webhooks/{id}': 'webhook.delete',
  'POST /v1/webhooks/{id}/resume': 'webhook.resume',
  'POST /v1/webhooks/{id}/rotate-secret': 'webhook.rotate_secret',
  'GET /v1/webhooks/{id}/deliveries': 'webhook.read',
};

/** The operations whose own (domain) refusals are walked here, beyond the token and the clearance. */
const DOMAIN_ROUTES = /^\/v1\/(assets|decommission-requests)(\/|$)/;

const METRICS_TOKEN = 'metrics-token-of-the-audited-refusals-suite';
const REQUESTER = 'officer-requester';
const APPROVER = 'officer-approver';
const ADMIRAL = 'admiral-10';
const HOARDER = 'officer-hoarder';

const operationOf = ({ method, path }: Pick<Route, 'method' | 'path'>) => `${method.toUpperCase()} ${path}`;

/** The route's clearance and the error code its clearance refusal answers, from its documented 403; undefined for a route without one. */
function clearanceOf(route: Route): { level: number; errorCode: string } | undefined {
  const forbidden = route.operation.responses['403'] as ResponseObject | undefined;
  const match = forbidden && /Clearance below (\d+) \((\w+)\)/.exec(forbidden.description);
  return match ? { level: Number(match[1]), errorCode: match[2] } : undefined;
}

/**
 * The refusals the operation documents besides 400, the token's 401, the clearance's 403 and the rate
 * limit's 429, as statuses: each must be walked below. A 403 or a 429 counts when it names a refusal of its own.
 */
function domainRefusalsOf(route: Route): number[] {
  return Object.entries(route.operation.responses)
    .filter(([status, response]) => {
      if (!['403', '404', '409', '412', '422', '429'].includes(status)) {
        return false;
      }
      const besidesShared = (response as ResponseObject).description.replace(/Clearance below \d+ \(\w+\)|\(RATE_LIMITED\)/g, '');
      return !['403', '429'].includes(status) || /\([A-Z_]+\)/.test(besidesShared);
    })
    .map(([status]) => Number(status));
}

interface ExpectedDenial {
  action: string;
  reason: string;
  /** The officer refused and their clearance; null for a token refusal. */
  actor: [id: string, clearance: number] | null;
  assetId: string | null;
}

interface RecordedEvent {
  action: string;
  outcome: string;
  reason: string | null;
  actor: string | null;
  actor_clearance: number | null;
  asset_id: string | null;
  request_id: string;
  method: string;
  path: string;
}

const EVENT_FIELDS = ['action', 'outcome', 'reason', 'actor', 'actor_clearance', 'asset_id', 'request_id', 'method', 'path'] as const;

/** The events written after `send`'s answer, in chain order; `send`'s answer is checked against the error body. */
async function eventsOfRefusal(t: TestApp, send: () => Test, status: number, errorCode: string): Promise<{ res: Response; events: RecordedEvent[] }> {
  const last = await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').executeTakeFirst();
  const res = await send();
  expectErrorBody(res, status, errorCode);
  const events = await t.db
    .selectFrom('audit_events')
    .select(EVENT_FIELDS)
    .where('id', '>', last?.id ?? 0)
    .orderBy('id')
    .execute();
  return { res, events: events.map((event) => ({ ...event, actor_clearance: event.actor_clearance === null ? null : Number(event.actor_clearance) })) };
}

/** The one denial `res` should have recorded, as stored. */
function denialOf(res: Response, { action, reason, actor, assetId }: ExpectedDenial): RecordedEvent {
  const { method, path } = (res as unknown as { req: { method: string; path: string } }).req;
  return {
    action,
    outcome: 'denied',
    reason,
    actor: actor?.[0] ?? null,
    actor_clearance: actor?.[1] ?? null,
    asset_id: assetId,
    request_id: String(res.headers['x-request-id']),
    method,
    path: path.split('?')[0],
  };
}

/** Sends the refusal and asserts its answer and exactly one new audit event: its denial. */
async function expectOneDenial(t: TestApp, send: () => Test, status: number, errorCode: string, expected: ExpectedDenial): Promise<void> {
  const { res, events } = await eventsOfRefusal(t, send, status, errorCode);
  assert.deepEqual(events, [denialOf(res, expected)]);
}

/** The asset id the path names, as the trail records a refusal on it. */
function pathAssetOf(route: Route): string | null {
  return route.path.includes('{asset_id}') ? decodeURIComponent(/^\/v1\/assets\/([^/?]+)/.exec(concretePath(route))?.[1] ?? '') : null;
}

function send(t: TestApp, route: Route, authorization?: string): Test {
  const req = t.http()[route.method](concretePath(route));
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

async function servedDocument(t: TestApp): Promise<OpenAPIObject> {
  return (await t.http().get('/docs-json').expect(200)).body as OpenAPIObject;
}

const expiredToken = () => `Bearer ${signHs256({ sub: 'officer-7', clearance: 7, exp: Math.floor(Date.now() / 1000) - 60 }, undefined, TEST_JWT_SECRET)}`;

const TOKEN_REFUSALS = [
  { reason: 'TOKEN_MISSING', how: 'without a token', authorization: () => undefined },
  { reason: 'TOKEN_INVALID', how: 'with a token that is no JWT', authorization: () => 'Bearer not-a-token' },
  { reason: 'TOKEN_EXPIRED', how: 'with an expired token', authorization: expiredToken },
] as const;

/** A domain refusal of one operation: how to bring it about, and the denial it records. */
interface DomainRefusal {
  operation: string;
  /** What is refused, for the test's name. */
  name: string;
  /** The app it is sent to: DECOMMISSION_APPROVAL=none (direct) or required (approval). */
  on: 'direct' | 'approval';
  status: number;
  errorCode: string;
  /** Sets the state the refusal needs; gives the refused request, and what puts the state back for the next refusal. */
  arrange: () => Promise<{ send: () => Test; settle?: () => Promise<unknown> }>;
  /** The denial; undefined when the refusal is no access decision and records nothing. */
  denial?: ExpectedDenial;
  /** Events the refusal writes before its denial (a request's expiry, marked by whoever reads it first). */
  before?: () => Partial<RecordedEvent>[];
}

describeEachDatabase('every refusal of every operation records exactly one denial', (engine) => {
  describe('the token and the clearance, operation by operation from the served document', () => {
    let t: TestApp;
    let document: OpenAPIObject;
    let routes: Route[];

    before(async () => {
      t = await startTestApp({ engine, env: { METRICS_TOKEN } });
      document = await servedDocument(t);
      routes = routesOf(document);
    });
    after(() => t.close());

    it('finds every operation, and each cleared one says which action its refusals are recorded under', () => {
      assert.ok(routes.length >= 20, `${routes.length} operations`);
      const cleared = routes.filter((route) => clearanceOf(route) !== undefined).map(operationOf);
      assert.deepEqual(cleared.sort(), Object.keys(ROUTE_ACTIONS).sort());
    });

    it('documents as the trail\'s actions and reasons exactly the words the modules declare', () => {
      const event = document.components?.schemas?.AuditEventDto as { properties: Record<string, { enum: unknown[] }> };
      const declaredActions = [AUTH_ACTIONS, ASSET_ACTIONS, AUDIT_MODULE_ACTIONS, DECOMMISSION_REQUEST_ACTIONS, WEBHOOK_ACTIONS].flatMap((actions) => Object.values(actions));
      const declaredReasons = [...AUTH_DENIAL_REASONS, ...ASSET_DENIAL_REASONS, RATE_LIMITED_REASON, ...DECOMMISSION_REQUEST_DENIAL_REASONS];
      assert.deepEqual([...event.properties.action.enum].sort(), [...declaredActions].sort());
      assert.deepEqual(event.properties.reason.enum.filter((reason) => reason !== null).sort(), [...declaredReasons].sort());
    });

    it('records exactly one denial of auth.authenticate for each token refusal of every operation that is not public', async (c: TestContext) => {
      for (const route of routes.filter(({ operation }) => !isPublic(operation))) {
        for (const { reason, how, authorization } of TOKEN_REFUSALS) {
          await c.test(`records exactly one ${reason} denial for ${operationOf(route)} ${how}`, async () => {
            await expectOneDenial(t, () => send(t, route, authorization()), 401, 'UNAUTHENTICATED', {
              action: 'auth.authenticate',
              reason,
              actor: null,
              assetId: pathAssetOf(route),
            });
          });
        }
      }
    });

    it("records exactly one CLEARANCE_INSUFFICIENT denial of the route's action for a caller one level below every cleared operation", async (c: TestContext) => {
      for (const route of routes) {
        const clearance = clearanceOf(route);
        if (!clearance) {
          continue;
        }
        const level = clearance.level - 1;
        await c.test(`records exactly one denial for a clearance-${level} ${operationOf(route)}`, async () => {
          await expectOneDenial(t, () => send(t, route, t.bearer(`officer-${level}`, level)), 403, clearance.errorCode, {
            action: ROUTE_ACTIONS[operationOf(route)],
            reason: 'CLEARANCE_INSUFFICIENT',
            actor: [`officer-${level}`, level],
            assetId: pathAssetOf(route),
          });
        });
      }
    });

    it('records exactly one denial of auth.authenticate for GET /metrics, public, without its own token or with another', async () => {
      const metrics = routes.find((route) => operationOf(route) === 'GET /metrics');
      assert.ok(metrics && isPublic(metrics.operation));
      await expectOneDenial(t, () => send(t, metrics), 401, 'UNAUTHENTICATED', { action: 'auth.authenticate', reason: 'TOKEN_MISSING', actor: null, assetId: null });
      await expectOneDenial(t, () => send(t, metrics, t.bearer(ADMIRAL, 10)), 401, 'UNAUTHENTICATED', { action: 'auth.authenticate', reason: 'TOKEN_INVALID', actor: null, assetId: null });
    });
  });

  describe('the domain refusals of the asset and decommission-request operations', () => {
    let direct: TestApp;
    let approval: TestApp;
    let routes: Route[];

    before(async () => {
      direct = await startTestApp({ engine });
      approval = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: 'required' } });
      routes = routesOf(await servedDocument(direct));
    });
    after(async () => {
      await direct.close();
      await approval.close();
    });

    const admiral = (t: TestApp) => t.bearer(ADMIRAL, 10);
    const requester = () => approval.bearer(REQUESTER, 7);
    const approver = () => approval.bearer(APPROVER, 8);
    const ASK = { reason: 'Worn out', authorized_by: APPROVER };
    /** A pending request for the asset, by the requester naming the approver; its id. */
    const pendingRequest = async (assetId: string) => (await decommission(approval, assetId, requester(), ASK).expect(202)).body.data.request_id as string;
    /** A request no longer pending: `decision` taken on it, by whoever may take it. */
    const decidedRequest = async (assetId: string, decision: 'reject' | 'withdraw') => {
      const requestId = await pendingRequest(assetId);
      await decideRequest(approval, requestId, decision, decision === 'withdraw' ? requester() : approver()).expect(200);
      return requestId;
    };
    /** A pending request whose expiry has passed, unread since. */
    const overdueRequest = async (assetId: string) => {
      const requestId = await pendingRequest(assetId);
      await approval.db.updateTable('decommission_requests').set({ expires_at: '2000-01-01T00:00:00.000Z' }).where('request_id', '=', requestId).execute();
      return requestId;
    };
    /** The officer holds as many pending requests as one may (on assets of no other refusal); gives what ends them. */
    const heldToTheLimit = async (officer: string) => {
      const held = Array.from({ length: approval.config.decommissionApproval.requestsPerOfficer }, (_, index) => ({
        request_id: randomUUID(),
        asset_id: `HLD-${String(index).padStart(4, '0')}`,
        state: 'pending' as const,
        requested_by: officer,
        authorized_by: APPROVER,
        reason: 'Held',
        created_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      }));
      await approval.db.insertInto('decommission_requests').values(held).execute();
      return () => approval.db.deleteFrom('decommission_requests').where('requested_by', '=', officer).execute();
    };
    /** A key the officer already used for another request (it is kept until IDEMPOTENCY_TTL): the key, for a request it does not fit. */
    const keyUsedElsewhere = async (officer: string) => {
      const key = randomUUID();
      const now = new Date();
      await approval.db
        .insertInto('idempotency_keys')
        .values({
          caller: officer,
          idempotency_key: key,
          method: 'POST',
          path: '/v1/assets/TIE-0001/recommission',
          fingerprint: '0'.repeat(64),
          claimed_at: now.toISOString(),
          expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
          status: 200,
          headers: '{}',
          body: '{}',
        })
        .execute();
      return key;
    };
    const byOfficer = (id: string, clearance: number, assetId: string | null) => ({ actor: [id, clearance] as [string, number], assetId });
    const expiryBy = (id: string, clearance: number, assetId: string) => () => [
      { action: 'decommission.expire', outcome: 'allowed', reason: null, actor: id, actor_clearance: clearance, asset_id: assetId },
    ];

    const REFUSALS: DomainRefusal[] = [
      // DECOMMISSION_APPROVAL=none
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE of an unknown asset',
        on: 'direct',
        status: 404,
        errorCode: 'ASSET_ACCESS_DENIED',
        arrange: async () => ({ send: () => decommission(direct, 'XYZ-9999', admiral(direct)) }),
        denial: { action: 'asset.decommission', reason: 'ASSET_NOT_FOUND', ...byOfficer(ADMIRAL, 10, 'XYZ-9999') },
      },
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE of an asset already decommissioned',
        on: 'direct',
        status: 404,
        errorCode: 'ASSET_ACCESS_DENIED',
        arrange: async () => ({ send: () => decommission(direct, 'OLD-0001', admiral(direct)) }),
        denial: { action: 'asset.decommission', reason: 'ASSET_NOT_FOUND', ...byOfficer(ADMIRAL, 10, 'OLD-0001') },
      },
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE whose If-Match names another record of the asset',
        on: 'direct',
        status: 412,
        errorCode: 'PRECONDITION_FAILED',
        arrange: async () => ({ send: () => decommission(direct, 'TIE-0001', admiral(direct)).set('If-Match', '"another-record"') }),
        denial: { action: 'asset.decommission', reason: 'PRECONDITION_FAILED', ...byOfficer(ADMIRAL, 10, 'TIE-0001') },
      },
      {
        operation: 'POST /v1/assets/{asset_id}/recommission',
        name: 'a recommission whose If-Match names another record of the asset',
        on: 'direct',
        status: 412,
        errorCode: 'PRECONDITION_FAILED',
        arrange: async () => ({ send: () => recommission(direct, 'OLD-0001', admiral(direct)).set('If-Match', '"another-record"') }),
        denial: { action: 'asset.recommission', reason: 'PRECONDITION_FAILED', ...byOfficer(ADMIRAL, 10, 'OLD-0001') },
      },
      {
        operation: 'POST /v1/assets/decommissions',
        name: 'a batch naming an unknown asset',
        on: 'direct',
        status: 404,
        errorCode: 'BATCH_DECOMMISSION_REFUSED',
        arrange: async () => ({ send: () => direct.http().post('/v1/assets/decommissions').set('Authorization', admiral(direct)).send({ asset_ids: ['TIE-0002', 'XYZ-9999'], ...DECOMMISSION_BODY }) }),
        denial: { action: 'asset.decommission', reason: 'ASSET_NOT_FOUND', ...byOfficer(ADMIRAL, 10, null) },
      },
      {
        operation: 'POST /v1/assets/decommissions',
        name: 'a batch naming an asset already decommissioned',
        on: 'direct',
        status: 409,
        errorCode: 'BATCH_DECOMMISSION_REFUSED',
        arrange: async () => ({ send: () => direct.http().post('/v1/assets/decommissions').set('Authorization', admiral(direct)).send({ asset_ids: ['TIE-0002', 'OLD-0001'], ...DECOMMISSION_BODY }) }),
        denial: { action: 'asset.decommission', reason: 'ASSET_NOT_ACTIVE', ...byOfficer(ADMIRAL, 10, null) },
      },
      {
        operation: 'POST /v1/assets/decommissions',
        name: 'a batch naming an asset in another pending request, under DECOMMISSION_APPROVAL=required',
        on: 'approval',
        status: 409,
        errorCode: 'BATCH_DECOMMISSION_REFUSED',
        arrange: async () => {
          const requestId = await pendingRequest('TIE-0001');
          return {
            send: () => approval.http().post('/v1/assets/decommissions').set('Authorization', requester()).send({ asset_ids: ['TIE-0002', 'TIE-0001'], ...ASK }),
            settle: () => decideRequest(approval, requestId, 'withdraw', requester()).expect(200),
          };
        },
        denial: { action: 'asset.decommission', reason: 'DECOMMISSION_REQUEST_PENDING', ...byOfficer(REQUESTER, 7, null) },
      },
      {
        operation: 'POST /v1/assets/decommissions',
        name: 'a batch whose authorized_by is the caller, under DECOMMISSION_APPROVAL=required',
        on: 'approval',
        status: 422,
        errorCode: 'AUTHORIZED_BY_IS_CALLER',
        arrange: async () => ({ send: () => approval.http().post('/v1/assets/decommissions').set('Authorization', requester()).send({ asset_ids: ['TIE-0002'], reason: 'Mine', authorized_by: REQUESTER }) }),
        denial: { action: 'asset.decommission', reason: 'AUTHORIZED_BY_IS_CALLER', ...byOfficer(REQUESTER, 7, null) },
      },
      {
        operation: 'POST /v1/assets/decommissions',
        name: 'a batch by an officer who holds as many pending requests as one may',
        on: 'approval',
        status: 429,
        errorCode: 'DECOMMISSION_REQUEST_LIMIT',
        arrange: async () => {
          const settle = await heldToTheLimit(HOARDER);
          return { send: () => approval.http().post('/v1/assets/decommissions').set('Authorization', approval.bearer(HOARDER, 7)).send({ asset_ids: ['TIE-0002'], ...ASK }), settle };
        },
        denial: { action: 'asset.decommission', reason: 'DECOMMISSION_REQUEST_LIMIT', ...byOfficer(HOARDER, 7, null) },
      },
      {
        operation: 'POST /v1/assets/decommissions',
        name: 'a batch whose Idempotency-Key the officer used for another request',
        on: 'approval',
        status: 422,
        errorCode: 'IDEMPOTENCY_KEY_MISMATCH',
        arrange: async () => {
          const key = await keyUsedElsewhere(REQUESTER);
          return { send: () => approval.http().post('/v1/assets/decommissions').set('Authorization', requester()).set('Idempotency-Key', key).send({ asset_ids: ['TIE-0002'], ...ASK }) };
        },
      },
      {
        operation: 'POST /v1/assets/{asset_id}/recommission',
        name: 'a recommission of an unknown asset',
        on: 'direct',
        status: 404,
        errorCode: 'ASSET_ACCESS_DENIED',
        arrange: async () => ({ send: () => recommission(direct, 'XYZ-9999', admiral(direct)) }),
        denial: { action: 'asset.recommission', reason: 'ASSET_NOT_FOUND', ...byOfficer(ADMIRAL, 10, 'XYZ-9999') },
      },
      {
        operation: 'POST /v1/assets/{asset_id}/recommission',
        name: 'a recommission of an active asset',
        on: 'direct',
        status: 409,
        errorCode: 'ASSET_NOT_DECOMMISSIONED',
        arrange: async () => ({ send: () => recommission(direct, 'TIE-0002', admiral(direct)) }),
        denial: { action: 'asset.recommission', reason: 'ASSET_NOT_DECOMMISSIONED', ...byOfficer(ADMIRAL, 10, 'TIE-0002') },
      },
      {
        operation: 'GET /v1/assets/{asset_id}',
        name: 'a GET of an unknown asset, a cleared read answered 404 that is no access decision',
        on: 'direct',
        status: 404,
        errorCode: 'ASSET_NOT_FOUND',
        arrange: async () => ({ send: () => getAsset(direct, 'XYZ-9999', admiral(direct)) }),
      },
      // DECOMMISSION_APPROVAL=required
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE whose authorized_by is the caller',
        on: 'approval',
        status: 422,
        errorCode: 'AUTHORIZED_BY_IS_CALLER',
        arrange: async () => ({ send: () => decommission(approval, 'TIE-0001', requester(), { ...DECOMMISSION_BODY, authorized_by: REQUESTER }) }),
        denial: { action: 'asset.decommission', reason: 'AUTHORIZED_BY_IS_CALLER', ...byOfficer(REQUESTER, 7, 'TIE-0001') },
      },
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE of an asset with a pending request',
        on: 'approval',
        status: 409,
        errorCode: 'DECOMMISSION_REQUEST_PENDING',
        arrange: async () => {
          const requestId = await pendingRequest('TIE-0001');
          return { send: () => decommission(approval, 'TIE-0001', requester(), ASK), settle: () => decideRequest(approval, requestId, 'withdraw', requester()).expect(200) };
        },
        denial: { action: 'asset.decommission', reason: 'DECOMMISSION_REQUEST_PENDING', ...byOfficer(REQUESTER, 7, 'TIE-0001') },
      },
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE opening a request for an unknown asset',
        on: 'approval',
        status: 404,
        errorCode: 'ASSET_ACCESS_DENIED',
        arrange: async () => ({ send: () => decommission(approval, 'XYZ-9999', requester(), ASK) }),
        denial: { action: 'asset.decommission', reason: 'ASSET_NOT_FOUND', ...byOfficer(REQUESTER, 7, 'XYZ-9999') },
      },
      {
        operation: 'DELETE /v1/assets/{asset_id}',
        name: 'a DELETE by an officer who holds as many pending requests as one may',
        on: 'approval',
        status: 429,
        errorCode: 'DECOMMISSION_REQUEST_LIMIT',
        arrange: async () => {
          const settle = await heldToTheLimit(HOARDER);
          return { send: () => decommission(approval, 'TIE-0001', approval.bearer(HOARDER, 7), ASK), settle };
        },
        denial: { action: 'asset.decommission', reason: 'DECOMMISSION_REQUEST_LIMIT', ...byOfficer(HOARDER, 7, 'TIE-0001') },
      },
      {
        operation: 'POST /v1/assets/{asset_id}/recommission',
        name: 'a recommission whose authorized_by is the caller',
        on: 'approval',
        status: 422,
        errorCode: 'AUTHORIZED_BY_IS_CALLER',
        arrange: async () => ({ send: () => recommission(approval, 'OLD-0001', requester(), { ...DECOMMISSION_BODY, authorized_by: REQUESTER }) }),
        denial: { action: 'asset.recommission', reason: 'AUTHORIZED_BY_IS_CALLER', ...byOfficer(REQUESTER, 7, 'OLD-0001') },
      },
      {
        operation: 'POST /v1/assets/{asset_id}/recommission',
        name: 'a recommission of an asset with a pending request',
        on: 'approval',
        status: 409,
        errorCode: 'DECOMMISSION_REQUEST_PENDING',
        arrange: async () => {
          const requestId = (await recommission(approval, 'OLD-0001', requester(), ASK).expect(202)).body.data.request_id;
          return { send: () => recommission(approval, 'OLD-0001', requester(), ASK), settle: () => decideRequest(approval, requestId, 'withdraw', requester()).expect(200) };
        },
        denial: { action: 'asset.recommission', reason: 'DECOMMISSION_REQUEST_PENDING', ...byOfficer(REQUESTER, 7, 'OLD-0001') },
      },
      {
        operation: 'POST /v1/assets/{asset_id}/recommission',
        name: 'a recommission by an officer who holds as many pending requests as one may',
        on: 'approval',
        status: 429,
        errorCode: 'DECOMMISSION_REQUEST_LIMIT',
        arrange: async () => {
          const settle = await heldToTheLimit(HOARDER);
          return { send: () => recommission(approval, 'OLD-0001', approval.bearer(HOARDER, 7), ASK), settle };
        },
        denial: { action: 'asset.recommission', reason: 'DECOMMISSION_REQUEST_LIMIT', ...byOfficer(HOARDER, 7, 'OLD-0001') },
      },
      {
        operation: 'GET /v1/decommission-requests/{request_id}',
        name: 'a GET of an unknown decommission request',
        on: 'approval',
        status: 404,
        errorCode: 'DECOMMISSION_REQUEST_NOT_FOUND',
        arrange: async () => ({ send: () => approval.http().get(`/v1/decommission-requests/${randomUUID()}`).set('Authorization', approver()) }),
        denial: { action: 'decommission.read', reason: 'DECOMMISSION_REQUEST_NOT_FOUND', ...byOfficer(APPROVER, 8, null) },
      },
      ...(['approve', 'reject', 'withdraw'] as const).flatMap((decision): DomainRefusal[] => {
        const operation = `POST /v1/decommission-requests/{request_id}/${decision}`;
        const action = `decommission.${decision}`;
        const taking = { approve: 'an approval', reject: 'a rejection', withdraw: 'a withdrawal' }[decision];
        // The officer the request names for this decision, and one it does not.
        const [party, partyId, partyClearance] = decision === 'withdraw' ? [requester, REQUESTER, 7] : [approver, APPROVER, 8];
        const [other, otherId, otherClearance, wrongOfficer] =
          decision === 'withdraw' ? [approver, APPROVER, 8, 'NOT_REQUESTER'] : [requester, REQUESTER, 7, 'NOT_AUTHORIZING_OFFICER'];
        return [
          {
            operation,
            name: `${taking} of an unknown decommission request`,
            on: 'approval',
            status: 404,
            errorCode: 'DECOMMISSION_REQUEST_NOT_FOUND',
            arrange: async () => ({ send: () => decideRequest(approval, randomUUID(), decision, party()) }),
            denial: { action, reason: 'DECOMMISSION_REQUEST_NOT_FOUND', ...byOfficer(partyId, partyClearance, null) },
          },
          {
            operation,
            name: `${taking} by an officer the request does not name for it`,
            on: 'approval',
            status: 403,
            errorCode: 'DECOMMISSION_REQUEST_FORBIDDEN',
            arrange: async () => {
              const requestId = await pendingRequest('TIE-0002');
              return { send: () => decideRequest(approval, requestId, decision, other()), settle: () => decideRequest(approval, requestId, 'withdraw', requester()).expect(200) };
            },
            denial: { action, reason: wrongOfficer, ...byOfficer(otherId, otherClearance, 'TIE-0002') },
          },
          {
            operation,
            name: `${taking} of a decommission request already decided`,
            on: 'approval',
            status: 409,
            errorCode: 'DECOMMISSION_REQUEST_NOT_PENDING',
            arrange: async () => {
              const requestId = await decidedRequest('EQP-0001', decision === 'withdraw' ? 'reject' : 'withdraw');
              return { send: () => decideRequest(approval, requestId, decision, party()) };
            },
            denial: { action, reason: 'DECOMMISSION_REQUEST_NOT_PENDING', ...byOfficer(partyId, partyClearance, 'EQP-0001') },
          },
          {
            operation,
            name: `${taking} of an expired decommission request, after the expiry it marks`,
            on: 'approval',
            status: 409,
            errorCode: 'DECOMMISSION_REQUEST_EXPIRED',
            arrange: async () => {
              const requestId = await overdueRequest('EQP-0001');
              return { send: () => decideRequest(approval, requestId, decision, party()) };
            },
            denial: { action, reason: 'DECOMMISSION_REQUEST_EXPIRED', ...byOfficer(partyId, partyClearance, 'EQP-0001') },
            before: expiryBy(partyId, partyClearance, 'EQP-0001'),
          },
        ];
      }),
      {
        operation: 'POST /v1/decommission-requests/{request_id}/approve',
        name: 'an approval whose asset is no longer active, as the decommission it would make, on no asset of its path',
        on: 'approval',
        status: 404,
        errorCode: 'ASSET_ACCESS_DENIED',
        arrange: async () => {
          const requestId = await pendingRequest('FAC-0001');
          await approval.db.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', 'FAC-0001').execute();
          return { send: () => decideRequest(approval, requestId, 'approve', approver()) };
        },
        denial: { action: 'asset.decommission', reason: 'ASSET_NOT_FOUND', ...byOfficer(APPROVER, 8, null) },
      },
      {
        operation: 'POST /v1/decommission-requests/{request_id}/approve',
        name: 'an approval of a recommission whose asset is active again, as the recommission it would make, on no asset of its path',
        on: 'approval',
        status: 409,
        errorCode: 'ASSET_NOT_DECOMMISSIONED',
        arrange: async () => {
          const requestId = (await recommission(approval, 'OLD-0001', requester(), ASK).expect(202)).body.data.request_id;
          await approval.db.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', 'OLD-0001').execute();
          const settle = async () => {
            await approval.db.updateTable('assets').set({ status: 'decommissioned' }).where('asset_id', '=', 'OLD-0001').execute();
            await decideRequest(approval, requestId, 'withdraw', requester()).expect(200);
          };
          return { send: () => decideRequest(approval, requestId, 'approve', approver()), settle };
        },
        denial: { action: 'asset.recommission', reason: 'ASSET_NOT_DECOMMISSIONED', ...byOfficer(APPROVER, 8, null) },
      },
      {
        operation: 'POST /v1/decommission-requests/{request_id}/approve',
        name: 'a approve whose Idempotency-Key the officer used for another request',
        on: 'approval',
        status: 422,
        errorCode: 'IDEMPOTENCY_KEY_MISMATCH',
        arrange: async () => {
          const requestId = randomUUID();
          const key = await keyUsedElsewhere(APPROVER);
          return { send: () => decideRequest(approval, requestId, 'approve', approver()).set('Idempotency-Key', key) };
        },
      },
      {
        operation: 'POST /v1/decommission-requests/{request_id}/reject',
        name: 'a reject whose Idempotency-Key the officer used for another request',
        on: 'approval',
        status: 422,
        errorCode: 'IDEMPOTENCY_KEY_MISMATCH',
        arrange: async () => {
          const requestId = randomUUID();
          const key = await keyUsedElsewhere(APPROVER);
          return { send: () => decideRequest(approval, requestId, 'reject', approver()).set('Idempotency-Key', key) };
        },
      },
      {
        operation: 'POST /v1/decommission-requests/{request_id}/withdraw',
        name: 'a withdraw whose Idempotency-Key the officer used for another request',
        on: 'approval',
        status: 422,
        errorCode: 'IDEMPOTENCY_KEY_MISMATCH',
        arrange: async () => {
          const requestId = randomUUID();
          const key = await keyUsedElsewhere(REQUESTER);
          return { send: () => decideRequest(approval, requestId, 'withdraw', requester()).set('Idempotency-Key', key) };
        },
      },
    ];

    it('walks every domain refusal the asset and decommission-request operations document', () => {
      for (const route of routes.filter(({ path }) => DOMAIN_ROUTES.test(path))) {
        const walked = new Set(REFUSALS.filter(({ operation }) => operation === operationOf(route)).map(({ status }) => status));
        assert.deepEqual([...walked].sort(), domainRefusalsOf(route).sort(), `${operationOf(route)}: the refusals it documents are walked`);
      }
      for (const { operation } of REFUSALS) {
        assert.ok(routes.some((route) => operationOf(route) === operation), `${operation} is in the document`);
      }
    });

    for (const refusal of REFUSALS) {
      const title = refusal.denial
        ? `records exactly one ${refusal.denial.reason} denial of ${refusal.denial.action} for ${refusal.name} (${refusal.operation})`
        : `records no denial for ${refusal.name} (${refusal.operation})`;
      it(title, async () => {
        const { send, settle } = await refusal.arrange();
        const { res, events } = await eventsOfRefusal(refusal.on === 'direct' ? direct : approval, send, refusal.status, refusal.errorCode);
        await settle?.();
        if (!refusal.denial) {
          assert.deepEqual(events, []);
          return;
        }
        const earlier = refusal.before?.() ?? [];
        assert.equal(events.length, earlier.length + 1, JSON.stringify(events));
        earlier.forEach((event, i) => assert.deepEqual(pick(events[i], Object.keys(event)), event));
        assert.deepEqual(events.filter(({ outcome }) => outcome === 'denied'), [denialOf(res, refusal.denial)]);
      });
    }
  });
});

const pick = (event: RecordedEvent, keys: string[]) => Object.fromEntries(keys.map((key) => [key, event[key as keyof RecordedEvent]]));
