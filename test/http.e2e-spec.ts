import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { decommission, expectErrorBody, getAsset, listAssets, listAuditEvents, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY_LIMIT_BYTES = 16 * 1024;
const INTERNAL_ERROR = { status: 'error', message: 'Internal server error', error_code: 'INTERNAL_ERROR' };

describeEachDatabase('HTTP behaviour shared by every route', (engine) => {
  let t: TestApp;
  let trooper: string;
  let admiral: string;

  const assetStatus = async (assetId: string) =>
    (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;

  before(async () => {
    t = await startTestApp({ engine });
    trooper = t.bearer('trooper-0', 0);
    admiral = t.bearer('admiral-7', 7);
  });
  after(() => t.close());

  describe('error bodies', () => {
    it('400 is exactly {status, message, error_code} without stack, paths or SQL', async () => {
      expectErrorBody(await listFleet(t, 'limit=abc', trooper), 400, 'VALIDATION_ERROR');
      expectErrorBody(await getAsset(t, 'tie-1', admiral), 400, 'VALIDATION_ERROR');
      expectErrorBody(await decommission(t, 'TIE-0001', admiral, { reason: 42 }), 400, 'VALIDATION_ERROR');
    });

    it('401 is exactly {status, message, error_code} without stack, paths or SQL', async () => {
      expectErrorBody(await listFleet(t, ''), 401, 'UNAUTHENTICATED');
      expectErrorBody(await listAssets(t, '', 'Bearer a.b.c'), 401, 'UNAUTHENTICATED');
    });

    it('403 is exactly {status, message, error_code} without stack, paths or SQL', async () => {
      expectErrorBody(await listAuditEvents(t, '', trooper), 403, 'CLEARANCE_INSUFFICIENT');
      expectErrorBody(await decommission(t, 'TIE-0001', t.bearer('major-6', 6)), 403, 'ASSET_ACCESS_DENIED');
    });

    it('404 is exactly {status, message, error_code} without stack, paths or SQL', async () => {
      expectErrorBody(await getAsset(t, 'XYZ-9999', admiral), 404, 'ASSET_NOT_FOUND');
      expectErrorBody(await t.http().get('/v1/nothing'), 404, 'NOT_FOUND');
    });

    it('413 is exactly {status, message, error_code} without stack, paths or SQL', async () => {
      expectErrorBody(await decommission(t, 'TIE-0001', admiral, { reason: 'x'.repeat(17_000), authorized_by: 'a' }), 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('routing', () => {
    it('answers an unknown route with 404 NOT_FOUND, with or without a token', async () => {
      for (const path of ['/v1/nothing', '/v1', '/api/v1/nothing', '/v2/fleet/star-destroyers']) {
        expectErrorBody(await t.http().get(path), 404, 'NOT_FOUND');
        expectErrorBody(await t.http().get(path).set('Authorization', trooper), 404, 'NOT_FOUND');
      }
    });

    it('answers a wrong method on a known path with 405 METHOD_NOT_ALLOWED', async () => {
      expectErrorBody(await t.http().post('/v1/fleet/star-destroyers').set('Authorization', trooper), 405, 'METHOD_NOT_ALLOWED');
      expectErrorBody(await t.http().put('/v1/assets/TIE-0001').set('Authorization', admiral).send(DECOMMISSION_BODY), 405, 'METHOD_NOT_ALLOWED');
      expectErrorBody(await t.http().delete('/v1/assets').set('Authorization', admiral), 405, 'METHOD_NOT_ALLOWED');
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });
  });

  describe('request bodies', () => {
    it('refuses malformed JSON on DELETE with 400 VALIDATION_ERROR', async () => {
      const res = await decommission(t, 'TIE-0001', admiral, '{"reason": "r", ').expect(400);
      assert.deepEqual(res.body, { status: 'error', message: 'Request body is not valid JSON', error_code: 'VALIDATION_ERROR' });
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });

    it('refuses a JSON body over 16 KB with 413 PAYLOAD_TOO_LARGE and leaves the asset active', async () => {
      const body = { reason: 'x'.repeat(17_000), authorized_by: 'Grand Moff Tarkin' };
      assert.ok(Buffer.byteLength(JSON.stringify(body)) > BODY_LIMIT_BYTES);
      expectErrorBody(await decommission(t, 'TIE-0001', admiral, body), 413, 'PAYLOAD_TOO_LARGE');
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });

    it('reads a body just under 16 KB and refuses its over-long reason with 400, not 413', async () => {
      const body = { reason: 'x'.repeat(16_000), authorized_by: 'Grand Moff Tarkin' };
      assert.ok(Buffer.byteLength(JSON.stringify(body)) < BODY_LIMIT_BYTES);
      expectErrorBody(await decommission(t, 'TIE-0001', admiral, body), 400, 'VALIDATION_ERROR', 'reason');
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });
  });

  describe('unexpected failures', () => {
    it('answers a database failure with 500 and exactly the generic INTERNAL_ERROR body, naming no SQL or table', async () => {
      const broken = await startTestApp({ engine });
      try {
        await broken.db.schema.dropTable('vessels').execute();
        const res = await listFleet(broken, '', broken.bearer('trooper-0', 0));
        expectErrorBody(res, 500, 'INTERNAL_ERROR');
        assert.deepEqual(res.body, INTERNAL_ERROR);
        assert.doesNotMatch(res.text, /vessels/i);
        assert.match(res.headers['x-request-id'], UUID);
      } finally {
        await broken.close();
      }
    });
  });

  describe('X-Request-Id', () => {
    it('is on every response: 200, 400, 401, 403, 404 (unknown route), 413, health and docs', async () => {
      const responses = [
        await listFleet(t, '', trooper).expect(200),
        await listFleet(t, 'limit=0', trooper).expect(400),
        await listFleet(t, '').expect(401),
        await listAuditEvents(t, '', trooper).expect(403),
        await t.http().get('/v1/nothing').expect(404),
        await decommission(t, 'TIE-0001', admiral, { reason: 'x'.repeat(17_000), authorized_by: 'a' }).expect(413),
        await t.http().get('/health/live').expect(200),
        await t.http().get('/health/ready').expect(200),
        await t.http().get('/docs-json').expect(200),
      ];
      const ids = responses.map((res) => res.headers['x-request-id']);
      for (const [index, id] of ids.entries()) {
        assert.match(id ?? '', UUID, `response ${index} carries a generated request id`);
      }
      assert.equal(new Set(ids).size, ids.length, 'each request gets its own id');
    });

    it('echoes a sane caller value unchanged', async () => {
      for (const id of ['req-123_abc.def:1', 'A', 'x'.repeat(128)]) {
        const ok = await listFleet(t, '', trooper).set('X-Request-Id', id).expect(200);
        assert.equal(ok.headers['x-request-id'], id);
        const notFound = await t.http().get('/v1/nothing').set('X-Request-Id', id).expect(404);
        assert.equal(notFound.headers['x-request-id'], id);
      }
    });

    it('replaces an insane caller value (spaces, over 128 characters, markup) with a generated uuid', async () => {
      for (const id of ['has spaces', 'x'.repeat(129), '<script>', 'a"b', 'semi;colon']) {
        const res = await t.http().get('/health/live').set('X-Request-Id', id).expect(200);
        assert.notEqual(res.headers['x-request-id'], id);
        assert.match(res.headers['x-request-id'], UUID, id);
      }
    });
  });

  describe('Swagger', () => {
    type Operation = {
      security?: unknown[];
      parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
      requestBody?: { content: Record<string, { schema: { $ref: string } }> };
      responses: Record<
        string,
        { content?: Record<string, { schema: { $ref?: string }; example?: Record<string, string> }>; headers?: Record<string, unknown> }
      >;
    };
    const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
    const ERROR_REF = '#/components/schemas/ErrorResponseDto';
    let doc: {
      security: unknown;
      paths: Record<string, Record<string, Operation>>;
      components: {
        schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required?: string[] }>;
        securitySchemes: Record<string, Record<string, unknown>>;
      };
    };

    const schemaOf = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')];
    const param = (operation: Operation, name: string) => {
      const found = operation.parameters?.find((p) => p.name === name);
      assert.ok(found, `parameter ${name}`);
      return found;
    };
    const operations = () =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, operation]) => ({ path, method, operation })),
      );

    before(async () => {
      doc = (await t.http().get('/docs-json').expect(200).expect('Content-Type', /json/)).body;
    });

    it('serves the Swagger UI at /docs without a token', async () => {
      const res = await t.http().get('/docs').expect(200).expect('Content-Type', /html/);
      assert.match(res.text, /swagger/i);
    });

    it('documents every route', () => {
      const paths = ['/v1/fleet/star-destroyers', '/v1/assets/{asset_id}', '/v1/assets', '/v1/audit/events', '/health/live', '/health/ready'];
      for (const path of paths) {
        assert.ok(doc.paths[path], path);
      }
      assert.ok(doc.paths['/v1/assets/{asset_id}'].get, 'GET /v1/assets/{asset_id}');
      assert.ok(doc.paths['/v1/assets/{asset_id}'].delete, 'DELETE /v1/assets/{asset_id}');
      assert.ok(doc.paths['/v1/fleet/star-destroyers'].get);
      assert.ok(doc.paths['/v1/assets'].get);
      assert.ok(doc.paths['/v1/audit/events'].get);
    });

    it('declares a bearer security scheme required by the whole document, with health operations exempt', () => {
      assert.equal(doc.components.securitySchemes.bearer.type, 'http');
      assert.equal(doc.components.securitySchemes.bearer.scheme, 'bearer');
      assert.deepEqual(doc.security, [{ bearer: [] }]);
      assert.deepEqual(doc.paths['/health/live'].get.security, []);
      assert.deepEqual(doc.paths['/health/ready'].get.security, []);
    });

    it('describes the fleet listing\'s limit, page and sector query parameters', () => {
      const operation = doc.paths['/v1/fleet/star-destroyers'].get;
      const limit = param(operation, 'limit');
      assert.equal(limit.in, 'query');
      assert.equal(limit.schema.type, 'integer');
      assert.equal(limit.schema.minimum, 1);
      assert.equal(limit.schema.maximum, 100);
      assert.equal(limit.schema.default, 10);
      const page = param(operation, 'page');
      assert.equal(page.in, 'query');
      assert.equal(page.schema.type, 'integer');
      assert.equal(page.schema.minimum, 1);
      assert.equal(page.schema.default, 1);
      const sector = param(operation, 'sector');
      assert.equal(sector.in, 'query');
      assert.deepEqual(sector.schema.enum, ['Outer Rim', 'Mid Rim', 'Inner Rim', 'Core Worlds']);
    });

    it('gives the DELETE\'s asset_id path parameter the pattern ^[A-Z]{3}-[0-9]{4}$', () => {
      const assetId = param(doc.paths['/v1/assets/{asset_id}'].delete, 'asset_id');
      assert.equal(assetId.in, 'path');
      assert.equal(assetId.schema.pattern, '^[A-Z]{3}-[0-9]{4}$');
    });

    it('requires reason (max 500) and authorized_by (max 100) in the DELETE body', () => {
      const body = doc.paths['/v1/assets/{asset_id}'].delete.requestBody;
      assert.ok(body, 'request body');
      const schema = schemaOf(body.content['application/json'].schema.$ref);
      assert.equal(schema.properties.reason.type, 'string');
      assert.equal(schema.properties.reason.maxLength, 500);
      assert.equal(schema.properties.authorized_by.type, 'string');
      assert.equal(schema.properties.authorized_by.maxLength, 100);
      assert.deepEqual([...(schema.required ?? [])].sort(), ['authorized_by', 'reason']);
    });

    it('declares the DELETE\'s responses 200, 400, 401, 403, 404 and 500, the errors with ErrorResponseDto', () => {
      const { responses } = doc.paths['/v1/assets/{asset_id}'].delete;
      for (const status of ['200', '400', '401', '403', '404', '500']) {
        assert.ok(responses[status], `declares ${status}`);
      }
      for (const status of ['400', '401', '403', '404', '500']) {
        assert.equal(responses[status].content?.['application/json'].schema.$ref, ERROR_REF, status);
      }
      const error = schemaOf(ERROR_REF);
      assert.deepEqual(Object.keys(error.properties).sort(), ['error_code', 'message', 'status']);
    });

    it('declares 401 and 429 (with Retry-After) with ErrorResponseDto on every operation except the public ones (health, metrics)', () => {
      const secured = operations().filter(({ operation }) => operation.security?.length !== 0);
      assert.ok(secured.length >= 5);
      for (const { path, method, operation } of secured) {
        assert.equal(operation.responses['401']?.content?.['application/json'].schema.$ref, ERROR_REF, `${method} ${path}`);
        assert.equal(operation.responses['429']?.content?.['application/json'].schema.$ref, ERROR_REF, `${method} ${path}`);
        assert.ok(operation.responses['429']?.headers?.['Retry-After'], `${method} ${path}`);
      }
      for (const { path, method, operation } of operations().filter(({ path }) => path.startsWith('/health'))) {
        assert.equal(operation.responses['401'], undefined, `${method} ${path}`);
        assert.equal(operation.responses['429'], undefined, `${method} ${path}`);
      }
    });

    it('gives each error an example with the error_code the route really answers with', () => {
      const example = (path: string, method: string, status: string) =>
        doc.paths[path][method].responses[status].content?.['application/json'].example?.error_code;
      assert.equal(example('/v1/assets/{asset_id}', 'delete', '403'), 'ASSET_ACCESS_DENIED');
      assert.equal(example('/v1/assets/{asset_id}', 'delete', '404'), 'ASSET_ACCESS_DENIED');
      assert.equal(example('/v1/assets/{asset_id}', 'delete', '413'), 'PAYLOAD_TOO_LARGE');
      assert.equal(example('/v1/assets/{asset_id}', 'get', '404'), 'ASSET_NOT_FOUND');
      assert.equal(example('/v1/audit/events', 'get', '403'), 'CLEARANCE_INSUFFICIENT');
      assert.equal(example('/v1/fleet/star-destroyers', 'get', '400'), 'VALIDATION_ERROR');
      assert.equal(example('/v1/fleet/star-destroyers', 'get', '401'), 'UNAUTHENTICATED');
      assert.equal(example('/health/ready', 'get', '503'), 'SERVICE_UNAVAILABLE');
    });

    it('documents the WWW-Authenticate header on 401 and X-Request-Id on every response', () => {
      for (const { path, method, operation } of operations()) {
        for (const [status, response] of Object.entries(operation.responses)) {
          assert.ok(response.headers?.['X-Request-Id'], `${method} ${path} ${status}`);
        }
        if (operation.responses['401']) {
          assert.ok(operation.responses['401'].headers?.['WWW-Authenticate'], `${method} ${path}`);
        }
      }
    });
  });
});
