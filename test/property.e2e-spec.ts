import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { startTestApp, type TestApp } from './support/test-app';

/** Enough runs to reach every route with every kind of input, few enough to finish in seconds on a loaded machine. */
const RUNS = 400;
const TIME_LIMIT_MS = 40_000;

const METHODS = ['get', 'post', 'put', 'delete', 'patch', 'options', 'head'] as const;
const PATH_CHARS = [...'ABCXYZabcz0189-_.~!$&\'()*+,;=:@%/'];
const HEADER_CHARS = [...' !"#$%&\'()*+,-./0123456789:;<=>?@ABZ[\\]^_`az{|}~'];
const HOSTILE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'limit', 'page', 'sector', 'status', 'outcome', 'asset_id', 'reason'];
const KNOWN_ASSETS = ['TIE-0001', 'TIE-0002', 'EQP-0001', 'FAC-0001', 'OLD-0001', 'XYZ-9999'];

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Attack {
  method: (typeof METHODS)[number];
  path: string;
  assetId: string | null;
  query: string;
  /** The clearance of a valid token, or null for a missing, forged or garbled one. */
  clearance: number | null;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string | undefined;
  requestId: string | undefined;
  forwardedFor: string | undefined;
}

function attacks(t: TestApp): fc.Arbitrary<Attack> {
  const segment = fc.string({ unit: fc.constantFrom(...PATH_CHARS), maxLength: 40 });
  const assetId = fc.oneof(fc.constantFrom(...KNOWN_ASSETS), fc.stringMatching(/^[A-Z]{3}-[0-9]{4}$/), segment, fc.constantFrom('%00', '%E0%A4%A', '%', '..', 'A'.repeat(3000)));
  const route = fc.oneof(
    assetId.map((id) => ({ path: `/v1/assets/${id}`, assetId: id })),
    assetId.map((id) => ({ path: `/api/v1/assets/${id}`, assetId: id })),
    fc.constantFrom('/v1/assets', '/v1/fleet/star-destroyers', '/v1/audit/events', '/v1/audit/verify', '/health/live', '/health/ready', '/docs-json', '/v2/assets', '/V1/assets', '/v1/assets/', '//v1/assets').map((path) => ({ path, assetId: null })),
    segment.map((path) => ({ path: `/${path}`, assetId: null })),
  );
  const queryPart = fc.tuple(fc.oneof(fc.constantFrom(...HOSTILE_NAMES), segment), fc.oneof(segment, fc.constantFrom('1', '0', '-1', '100', '101', '1e3', 'Outer%20Rim', 'active', '%E0%A4%A', '%00')));
  const query = fc.array(queryPart, { maxLength: 4 }).map((parts) => parts.map(([key, value]) => `${key.replace(/[?#]/g, '')}=${value.replace(/[?#]/g, '')}`).join('&'));
  const token = fc.oneof(
    fc.integer({ min: 0, max: 10 }).map((clearance) => ({ clearance, authorization: t.bearer(`officer-${clearance}`, clearance) })),
    fc.constantFrom(undefined, 'Bearer', 'Bearer a.b.c', 'Basic YTpi', `Bearer ${base64url({ alg: 'none' })}.${base64url({ sub: 'x', clearance: 10, exp: 4e9 })}.`).map((authorization) => ({ clearance: null, authorization })),
    fc.integer({ min: 0, max: 6 }).map((clearance) => {
      const [header, , signature] = t.bearer('forger', clearance).slice('Bearer '.length).split('.');
      return { clearance: null, authorization: `Bearer ${header}.${base64url({ sub: 'forger', clearance: 10, exp: 4e9 })}.${signature}` };
    }),
    fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength: 200 }).map((authorization) => ({ clearance: null, authorization })),
  );
  const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 600 }), fc.constantFrom('', ' ', 'r', 'a\u0000b', '\ud800', 'x'.repeat(501)));
  const body = fc.oneof(
    fc.constant(undefined),
    fc.constant(JSON.stringify(DECOMMISSION_BODY)),
    fc.record({ reason: text, authorized_by: text }).map((value) => JSON.stringify(value)),
    fc.dictionary(fc.oneof(fc.constantFrom(...HOSTILE_NAMES), fc.string()), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }).map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.integer({ min: 1, max: 3000 }).map((depth) => `{"reason":${'['.repeat(depth)}${']'.repeat(depth)},"authorized_by":"a"}`),
    fc.constantFrom('{"reason":"r",', 'null', 'true', '[]', '"s"', '{"__proto__":{"polluted":1},"reason":"r","authorized_by":"a"}', 'x'.repeat(17_000)),
  );
  const headerText = fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength: 200 });
  return fc.record({
    method: fc.constantFrom(...METHODS),
    route,
    query,
    token,
    contentType: fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
    body,
    requestId: fc.option(headerText, { nil: undefined }),
    forwardedFor: fc.option(headerText, { nil: undefined }),
  }).map(({ route: { path, assetId: id }, token: { clearance, authorization }, ...rest }) => ({ ...rest, path, assetId: id, clearance, authorization }));
}

function send(t: TestApp, attack: Attack): Promise<Response> {
  let req = t.http()[attack.method](attack.query ? `${attack.path}?${attack.query}` : attack.path);
  for (const [name, value] of [['Authorization', attack.authorization], ['Content-Type', attack.contentType], ['X-Request-Id', attack.requestId], ['X-Forwarded-For', attack.forwardedFor]] as const) {
    if (value !== undefined) {
      req = req.set(name, value);
    }
  }
  return attack.body === undefined ? req : req.send(attack.body);
}

/** Valid in every respect a decommission checks (it reads no query): only such a request may change an asset. */
function isValidDecommission(attack: Attack): boolean {
  let body: unknown;
  try {
    body = attack.body === undefined ? undefined : JSON.parse(attack.body);
  } catch {
    return false;
  }
  const fieldOk = (value: unknown, max: number) => typeof value === 'string' && /\S/.test(value) && /^[^\p{Cc}\p{Cs}]*$/u.test(value) && [...value].length <= max;
  const record = body as Record<string, unknown> | undefined;
  return (
    attack.method === 'delete' &&
    (attack.clearance ?? 0) >= 7 &&
    /^\/(api\/)?v1\/assets\/[A-Z]{3}-[0-9]{4}$/.test(attack.path) &&
    (attack.contentType?.startsWith('application/json') ?? false) &&
    !attack.contentType?.includes('latin1') &&
    typeof record === 'object' &&
    record !== null &&
    Object.keys(record).sort().join() === 'authorized_by,reason' &&
    fieldOk(record.reason, 500) &&
    fieldOk(record.authorized_by, 100)
  );
}

describeEachDatabase('generated hostile requests on every route', (engine) => {
  let t: TestApp;
  const assets = async () => JSON.stringify(await t.db.selectFrom('assets').selectAll().orderBy('asset_id').execute());

  before(async () => {
    t = await startTestApp({ engine });
  });
  after(() => t.close());

  it(`never answers 5xx, always answers errors with the error body and no stack, and changes an asset only on a valid decommission with clearance >= 7 (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(attacks(t), async (attack) => {
        const before = await assets();
        const res = await send(t, attack);
        const label = `${attack.method.toUpperCase()} ${attack.path}?${attack.query} -> ${res.status} ${res.text?.slice(0, 200)}`;
        assert.ok(res.status < 500, label);
        assert.doesNotMatch(res.text ?? '', /\bat [\w.<>]+ \(|\.(ts|js):\d+/, `no stack trace: ${label}`);
        if (res.status >= 400 && attack.method !== 'head') {
          assert.deepEqual(Object.keys(res.body as object).sort(), ['error_code', 'message', 'status'], label);
          assert.equal(res.body.status, 'error', label);
          assert.match(res.body.error_code, /^[A-Z_]+$/, label);
          assert.equal(typeof res.body.message, 'string', label);
        }
        const changed = (await assets()) !== before;
        if (changed) {
          assert.ok(isValidDecommission(attack) && res.status === 200, `an asset changed: ${label}`);
        }
        if (res.status === 200 && attack.method === 'delete') {
          assert.ok(changed && isValidDecommission(attack), `answered a decommission it should not have: ${label}`);
        }
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS },
    );
  });
});
