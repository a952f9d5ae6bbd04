import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import type { Test } from 'supertest';
import { DECOMMISSION_BODY } from './support/fixtures';
import { countRows } from '../src/database';
import { describeEachDatabase } from './support/databases';
import { expectErrorBody, listFleet } from './support/http';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';

const FLEET = '/v1/fleet/star-destroyers';
const OTHER_SECRET = 'another-secret-that-is-at-least-32-characters-long';

const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;
const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** A token built by hand: any header, any payload text, signed HS256 with the given secret. */
function signRaw(header: object, payloadText: string, secret = TEST_JWT_SECRET): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(payloadText)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

/** A token signed with jsonwebtoken; only the claims given (no iat), HS256 and the test secret unless told otherwise. */
function sign(payload: object, options: jwt.SignOptions = {}, secret = TEST_JWT_SECRET): string {
  return jwt.sign(payload, secret, { algorithm: 'HS256', noTimestamp: true, ...options });
}

const validClaims = () => ({ sub: 'officer-5', clearance: 5, exp: inOneHour() });
const bearer = (token: string) => `Bearer ${token}`;

type Reason = 'TOKEN_MISSING' | 'TOKEN_INVALID' | 'TOKEN_EXPIRED';

/** Sends the request and checks the 401 body, header and the single audit event it leaves. */
async function expectRefused(
  t: TestApp,
  send: () => Test,
  expected: { reason: Reason; method: string; path: string; assetId?: string | null },
): Promise<void> {
  const count = () => countRows(t.db, 'audit_events');
  const maxId = await t.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirstOrThrow()
    .then(({ id }) => Number(id ?? 0));
  const countBefore = await count();

  const res = await send();

  expectErrorBody(res, 401, 'UNAUTHENTICATED');
  assert.equal(res.headers['www-authenticate'], 'Bearer');

  assert.equal(await count(), countBefore + 1, 'exactly one audit event is written');
  const events = await t.db.selectFrom('audit_events').selectAll().where('id', '>', maxId).execute();
  assert.equal(events.length, 1);
  const [event] = events;
  assert.equal(event.action, 'auth.authenticate');
  assert.equal(event.outcome, 'denied');
  assert.equal(event.reason, expected.reason);
  assert.equal(event.actor, null);
  assert.equal(event.actor_clearance, null);
  assert.equal(event.asset_id, expected.assetId ?? null);
  assert.equal(event.method, expected.method);
  assert.equal(event.path, expected.path);
  assert.ok(res.headers['x-request-id']);
  assert.equal(event.request_id, res.headers['x-request-id']);
  assert.ok(event.ip);
}

describeEachDatabase('bearer-token authentication', (engine) => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ engine });
  });
  after(() => t.close());

  const getFleet = (authorization?: string) => listFleet(t, '', authorization);

  describe('valid tokens', () => {
    it('lets a token from bearer() with clearance 0 list the fleet', async () => {
      const res = await getFleet(t.bearer('officer', 0)).expect(200);
      assert.equal(res.body.status, 'success');
      assert.ok(Array.isArray(res.body.data.vessels));
    });

    it('accepts the scheme in lower case ("bearer <token>")', async () => {
      await getFleet(t.bearer('officer', 0).replace(/^Bearer/, 'bearer')).expect(200);
    });

    it('accepts a hand-signed HS256 token with sub, integer clearance and exp (the base of every refusal below)', async () => {
      await getFleet(bearer(sign(validClaims()))).expect(200);
      await getFleet(bearer(signRaw({ alg: 'HS256', typ: 'JWT' }, JSON.stringify(validClaims())))).expect(200);
      await getFleet(bearer(sign({ ...validClaims(), clearance: 0 }))).expect(200);
      await getFleet(bearer(sign({ ...validClaims(), clearance: 10 }))).expect(200);
    });
  });

  describe('refuses with 401 UNAUTHENTICATED, WWW-Authenticate: Bearer and one audit event', () => {
    const refuses = (authorization: string | undefined, reason: Reason) =>
      expectRefused(t, () => getFleet(authorization), { reason, method: 'GET', path: FLEET });

    it('refuses a request with no Authorization header as TOKEN_MISSING', () => refuses(undefined, 'TOKEN_MISSING'));

    it('refuses the Basic scheme as TOKEN_INVALID', () => refuses('Basic xyz', 'TOKEN_INVALID'));

    it('refuses "Bearer" with no token as TOKEN_INVALID', async () => {
      await refuses('Bearer', 'TOKEN_INVALID');
      await refuses('Bearer ', 'TOKEN_INVALID');
    });

    it('refuses a garbage token as TOKEN_INVALID', async () => {
      await refuses('Bearer garbage', 'TOKEN_INVALID');
      await refuses('Bearer not.a.jwt', 'TOKEN_INVALID');
      await refuses('Bearer {"sub":"x"}', 'TOKEN_INVALID');
    });

    it('refuses a token signed with another secret as TOKEN_INVALID', async () => {
      await refuses(bearer(sign(validClaims(), {}, OTHER_SECRET)), 'TOKEN_INVALID');
    });

    it('refuses an unsigned token with alg "none" as TOKEN_INVALID', async () => {
      const unsigned = `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url(JSON.stringify(validClaims()))}.`;
      await refuses(bearer(unsigned), 'TOKEN_INVALID');
    });

    it('refuses tokens signed HS512 or HS384 with the right secret as TOKEN_INVALID', async () => {
      await refuses(bearer(sign(validClaims(), { algorithm: 'HS512' })), 'TOKEN_INVALID');
      await refuses(bearer(sign(validClaims(), { algorithm: 'HS384' })), 'TOKEN_INVALID');
    });

    it('refuses an expired token as TOKEN_EXPIRED', async () => {
      await refuses(bearer(sign({ ...validClaims(), exp: Math.floor(Date.now() / 1000) - 60 })), 'TOKEN_EXPIRED');
    });

    it('refuses a token without exp, or with a non-numeric exp, as TOKEN_INVALID', async () => {
      await refuses(bearer(sign({ sub: 'officer-5', clearance: 5 })), 'TOKEN_INVALID');
      const stringExp = JSON.stringify({ ...validClaims(), exp: String(inOneHour()) });
      await refuses(bearer(signRaw({ alg: 'HS256', typ: 'JWT' }, stringExp)), 'TOKEN_INVALID');
    });

    it('refuses a clearance outside the integers 0 to 10 as TOKEN_INVALID', async () => {
      for (const clearance of [11, -1, 7.5, '7', null, true]) {
        await refuses(bearer(sign({ ...validClaims(), clearance })), 'TOKEN_INVALID');
      }
    });

    it('refuses a token without clearance as TOKEN_INVALID', async () => {
      await refuses(bearer(sign({ sub: 'officer-5', exp: inOneHour() })), 'TOKEN_INVALID');
    });

    it('refuses a missing, empty, blank or non-string sub as TOKEN_INVALID', async () => {
      await refuses(bearer(sign({ clearance: 5, exp: inOneHour() })), 'TOKEN_INVALID');
      for (const sub of ['', '   ', '\t', 42, null, ['officer-5']]) {
        await refuses(bearer(sign({ ...validClaims(), sub })), 'TOKEN_INVALID');
      }
    });

    it('refuses a correctly signed payload that is not a JSON object as TOKEN_INVALID', async () => {
      for (const payload of ['"officer-5"', 'null', '42', '[]', 'not json']) {
        await refuses(bearer(signRaw({ alg: 'HS256', typ: 'JWT' }, payload)), 'TOKEN_INVALID');
        await refuses(bearer(signRaw({ alg: 'HS256' }, payload)), 'TOKEN_INVALID');
      }
    });

    it('records the path without the query string', async () => {
      await expectRefused(t, () => listFleet(t, 'limit=5'), { reason: 'TOKEN_MISSING', method: 'GET', path: FLEET });
    });

    it('keeps a caller-supplied X-Request-Id as the audit request_id', async () => {
      await expectRefused(t, () => listFleet(t, '').set('X-Request-Id', 'auth-test-42'), {
        reason: 'TOKEN_MISSING',
        method: 'GET',
        path: FLEET,
      });
      const event = await t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
      assert.equal(event.request_id, 'auth-test-42');
    });
  });

  describe('JWT_ISSUER and JWT_AUDIENCE', () => {
    const ISSUER = 'command-authority';
    const AUDIENCE = 'fleet-registry';
    let scoped: TestApp;

    before(async () => {
      scoped = await startTestApp({ engine, env: { JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE } });
    });
    after(() => scoped.close());

    const refuses = (token: string) =>
      expectRefused(scoped, () => listFleet(scoped, '', bearer(token)), {
        reason: 'TOKEN_INVALID',
        method: 'GET',
        path: FLEET,
      });

    it('accepts tokens from its own bearer(), which carry the issuer and audience', async () => {
      const token = scoped.bearer('officer', 3).slice('Bearer '.length);
      const claims = jwt.decode(token) as jwt.JwtPayload;
      assert.equal(claims.iss, ISSUER);
      assert.equal(claims.aud, AUDIENCE);
      await listFleet(scoped, '', scoped.bearer('officer', 3)).expect(200);
    });

    it('accepts a hand-signed token with the right issuer and audience', async () => {
      await listFleet(scoped, '', bearer(sign(validClaims(), { issuer: ISSUER, audience: AUDIENCE }))).expect(200);
    });

    it('refuses a token without issuer and audience as TOKEN_INVALID', () => refuses(sign(validClaims())));

    it('refuses a wrong or missing issuer as TOKEN_INVALID', async () => {
      await refuses(sign(validClaims(), { issuer: 'rebel-alliance', audience: AUDIENCE }));
      await refuses(sign(validClaims(), { audience: AUDIENCE }));
    });

    it('refuses a wrong or missing audience as TOKEN_INVALID', async () => {
      await refuses(sign(validClaims(), { issuer: ISSUER, audience: 'cantina' }));
      await refuses(sign(validClaims(), { issuer: ISSUER }));
    });

    it('refuses a token from an app without issuer and audience', () =>
      refuses(t.bearer('officer', 3).slice('Bearer '.length)));
  });

  describe('routes that need no token', () => {
    const eventCount = () => countRows(t.db, 'audit_events');

    it('answers /health/live and /health/ready with 200 {status: "success"} and records nothing', async () => {
      const countBefore = await eventCount();
      for (const path of ['/health/live', '/health/ready']) {
        const res = await t.http().get(path).expect(200);
        assert.deepEqual(res.body, { status: 'success' });
      }
      assert.equal(await eventCount(), countBefore);
    });

    it('serves /docs-json without a token', async () => {
      const res = await t.http().get('/docs-json').expect(200);
      assert.match(String(res.body.openapi), /^3\./);
    });

    it('answers unknown routes with 404 NOT_FOUND, not 401, and records nothing', async () => {
      const countBefore = await eventCount();
      for (const path of ['/nowhere', '/v1/nowhere', '/api/v1/nowhere', '/v1/fleet/tie-fighters', '/v2/assets']) {
        const res = await t.http().get(path);
        expectErrorBody(res, 404, 'NOT_FOUND');
        assert.equal(res.headers['www-authenticate'], undefined);
      }
      assert.equal(await eventCount(), countBefore);
    });
  });

  describe('every protected route refuses a request without a token', () => {
    const ROUTES = [
      ['GET', '/v1/fleet/star-destroyers', null],
      ['GET', '/v1/assets', null],
      ['GET', '/v1/assets/TIE-0001', 'TIE-0001'],
      ['DELETE', '/v1/assets/TIE-0001', 'TIE-0001'],
      ['GET', '/v1/audit/events', null],
    ] as const;

    for (const prefix of ['', '/api']) {
      for (const [method, route, assetId] of ROUTES) {
        const path = `${prefix}${route}`;
        it(`refuses ${method} ${path} with 401 TOKEN_MISSING`, async () => {
          const send = () => (method === 'GET' ? t.http().get(path) : t.http().delete(path).send(DECOMMISSION_BODY));
          await expectRefused(t, send, { reason: 'TOKEN_MISSING', method, path, assetId });
        });
      }
    }

    it('leaves the asset active after the refused DELETEs', async () => {
      const row = await t.db.selectFrom('assets').selectAll().where('asset_id', '=', 'TIE-0001').executeTakeFirstOrThrow();
      assert.equal(row.status, 'active');
    });

    it('serves every one of those routes with a valid token, under /api/v1 with the same body', async () => {
      const admiral = t.bearer('admiral', 7);
      for (const [method, route] of ROUTES) {
        if (method === 'GET') {
          const direct = await t.http().get(route).set('Authorization', admiral).expect(200);
          const alias = await t.http().get(`/api${route}`).set('Authorization', admiral).expect(200);
          assert.deepEqual(alias.body, direct.body, route);
        }
      }
      await t.http().delete('/api/v1/assets/TIE-0001').set('Authorization', admiral).send(DECOMMISSION_BODY).expect(200);
    });
  });
});
