import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenAPIObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { EXAMPLE_REJECTED_REQUEST_ID, EXAMPLE_REQUEST_ID, EXAMPLE_WITHDRAWN_REQUEST_ID } from '../src/assets/dto/decommission-request.dto';
import { EXAMPLE_WEBHOOK_ID } from '../src/delivery/webhooks/dto/webhook.dto';
import { SecretBox } from '../src/delivery/webhooks/secret-box';
import { describeEachDatabase } from './support/databases';
import { concretePath, isPublic, type Route, routesOf } from './support/openapi';
import { startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';
import { SINK_TEST_ENV, startWebhookSink, type WebhookSink } from './support/webhooks';
import demoData from '../src/import/demo-data.json';

type Schema = SchemaObject & ReferenceObject;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The document Swagger UI reads (/docs-json), checked against the service's real replies: each route
 * answered on a fresh database, so the decommission's documented asset is still active.
 */
describeEachDatabase('the OpenAPI document against the service', (engine) => {
  let t: TestApp;
  let document: OpenAPIObject;
  let routes: Route[];
  /** Where the documented subscription points: its deliveries fail on this machine. */
  let sink: WebhookSink;

  before(async () => {
    sink = await startWebhookSink();
    t = await startTestApp({ engine, env: { ...SINK_TEST_ENV, AUDIT_CHECKPOINT_INTERVAL_MS: '100' } });
    // The proofs' documented event 1 and trees of 1 event: a refusal records it, then a checkpoint covers it.
    await t.http().get('/v1/fleet/star-destroyers').expect(401);
    const admiral = t.bearer('admiral-7', 7);
    const signed = async () => (await t.http().get('/v1/audit/checkpoint').set('Authorization', admiral)).text.split('\n')[1] === '1';
    await waitUntil(signed, 'no checkpoint of the first event within 10 s');
    document = (await t.http().get('/docs-json').expect(200)).body;
    routes = routesOf(document);
    // The decommission requests the documented ids name, pending, each for the decision its route documents.
    const pending = { state: 'pending' as const, reason: 'Worn out', created_at: new Date().toISOString(), expires_at: new Date(Date.now() + 3_600_000).toISOString() };
    await t.db
      .insertInto('decommission_requests')
      .values([
        { ...pending, request_id: EXAMPLE_REQUEST_ID, asset_id: 'TIE-0002', requested_by: 'officer-9', authorized_by: 'admiral-7' },
        { ...pending, request_id: EXAMPLE_REJECTED_REQUEST_ID, asset_id: 'EQP-0001', requested_by: 'officer-9', authorized_by: 'admiral-7' },
        { ...pending, request_id: EXAMPLE_WITHDRAWN_REQUEST_ID, asset_id: 'FAC-0001', requested_by: 'admiral-7', authorized_by: 'officer-9' },
      ])
      .execute();
    await t.db
      .insertInto('decommission_request_assets')
      .values([
        { request_id: EXAMPLE_REQUEST_ID, asset_id: 'TIE-0002', position: 0, pending: 1 },
        { request_id: EXAMPLE_REJECTED_REQUEST_ID, asset_id: 'EQP-0001', position: 0, pending: 1 },
        { request_id: EXAMPLE_WITHDRAWN_REQUEST_ID, asset_id: 'FAC-0001', position: 0, pending: 1 },
      ])
      .execute();
  });
  after(async () => {
    await t.close();
    await sink.close();
  });

  /** The subscription the documented id names, made again when a route (the DELETE) removed it. */
  const exampleWebhook = async () => {
    if (await t.db.selectFrom('webhook_subscriptions').select('feed_id').where('feed_id', '=', EXAMPLE_WEBHOOK_ID).executeTakeFirst()) {
      return;
    }
    const now = new Date().toISOString();
    await t.db.insertInto('delivery_feeds').values({ feed_id: EXAMPLE_WEBHOOK_ID, kind: 'webhook', state: 'active', cursor: 0, created_at: now, updated_at: now }).execute();
    const secret = t.app.get(SecretBox).seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9e1IIYxQrL8=');
    await t.db.insertInto('webhook_subscriptions').values({ feed_id: EXAMPLE_WEBHOOK_ID, url: sink.url('/hooks'), description: null, filter: '{}', secret, created_by: 'admiral-9' }).execute();
  };

  const responseOf = ({ operation }: Route, status: string) => operation.responses[status] as ResponseObject | undefined;
  const resolve = (schema: Schema): SchemaObject =>
    schema.$ref ? (document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] as SchemaObject) : schema;

  /** The example Swagger UI shows: the media type's own, else one drawn from the schema, property by property in its order (of a nullable object, the object's). */
  const exampleOf = (schema: Schema): unknown => {
    const resolved = resolve(schema);
    if (resolved.example !== undefined) {
      return resolved.example;
    }
    const [firstChoice] = (resolved.anyOf ?? []).filter((choice) => !('type' in choice && choice.type === 'null'));
    if (firstChoice) {
      return exampleOf(firstChoice as Schema);
    }
    if (resolved.type === 'array') {
      return [exampleOf(resolved.items as Schema)];
    }
    return Object.fromEntries(Object.entries(resolved.properties ?? {}).map(([key, property]) => [key, exampleOf(property as Schema)]));
  };
  const documentedExample = (route: Route, status: string): unknown => {
    const media = responseOf(route, status)?.content?.['application/json'];
    assert.ok(media, `${route.method} ${route.path} documents a JSON ${status}`);
    return media.example ?? exampleOf(media.schema as Schema);
  };

  /** Same keys in the same order, at every depth; keys the example has and the reply lacks (optional ones) aside. */
  const assertKeyOrder = (reply: unknown, example: unknown, where: string): void => {
    if (Array.isArray(reply) && Array.isArray(example)) {
      reply.forEach((item, index) => assertKeyOrder(item, example[0], `${where}[${index}]`));
    } else if (isObject(reply) && isObject(example)) {
      assert.deepEqual(Object.keys(reply), Object.keys(example).filter((key) => key in reply), where);
      for (const key of Object.keys(reply)) {
        assertKeyOrder(reply[key], example[key], `${where}.${key}`);
      }
    }
  };

  it('is OpenAPI 3.1.0, where a DELETE body is part of the operation, and documents the decommission body', () => {
    assert.equal(document.openapi, '3.1.0');
    const decommission = routes.find(({ method, path }) => method === 'delete' && path === '/v1/assets/{asset_id}');
    assert.ok(decommission?.operation.requestBody, 'the DELETE has a requestBody');
  });

  it('describes every response of every operation', () => {
    for (const route of routes) {
      for (const [status, response] of Object.entries(route.operation.responses)) {
        assert.ok((response as ResponseObject).description?.trim(), `${route.method} ${route.path} ${status} has a description`);
      }
    }
  });

  it('documents 503 SERVICE_UNAVAILABLE on every route that needs the database: all but liveness', () => {
    const needsDatabase = routes.filter(({ method, path }) => `${method} ${path}` !== 'get /health/live');
    assert.ok(needsDatabase.length >= 7);
    for (const route of needsDatabase) {
      assert.equal((documentedExample(route, '503') as { error_code?: string }).error_code, 'SERVICE_UNAVAILABLE', `${route.method} ${route.path}`);
    }
  });

  it('documents 413 and 415 where a body is taken, and the error body on every error response', () => {
    for (const route of routes) {
      const statuses = Object.keys(route.operation.responses);
      assert.equal(statuses.includes('413') && statuses.includes('415'), Boolean(route.operation.requestBody), `${route.method} ${route.path}`);
      for (const status of statuses.filter((code) => Number(code) >= 400)) {
        const media = responseOf(route, status)?.content?.['application/json'];
        assert.equal((media?.schema as ReferenceObject | undefined)?.$ref, '#/components/schemas/ErrorResponseDto', `${route.method} ${route.path} ${status}`);
        assert.match(String((media?.example as { error_code?: unknown } | undefined)?.error_code), /^[A-Z_]+$/);
      }
    }
  });

  it('shows limit 1..100 (default 10) and page from 1 (default 1) on every listing', () => {
    const listings = routes.filter(({ operation }) => operation.parameters?.some((parameter) => 'name' in parameter && parameter.name === 'limit'));
    assert.ok(listings.length >= 3);
    for (const { path, operation } of listings) {
      const schemaOf = (name: string) => (operation.parameters?.find((parameter) => 'name' in parameter && parameter.name === name) as { schema: SchemaObject }).schema;
      assert.deepEqual(
        { minimum: schemaOf('limit').minimum, maximum: schemaOf('limit').maximum, default: schemaOf('limit').default },
        { minimum: 1, maximum: 100, default: 10 },
        path,
      );
      assert.deepEqual({ minimum: schemaOf('page').minimum, default: schemaOf('page').default }, { minimum: 1, default: 1 }, path);
    }
  });

  it('gives each success example its keys in the order the service writes them, at every depth', async () => {
    // Clearance 9: the webhook changes ask for it; the subject is the one the documented requests name.
    const admiral = t.bearer('admiral-7', 9);
    // /metrics answers Prometheus text, which has no keys to order.
    for (const route of routes.filter((candidate) => responseOf(candidate, '200')?.content?.['application/json'])) {
      if (route.path.startsWith('/v1/webhooks/{id}')) {
        await exampleWebhook();
      }
      const body = route.operation.requestBody && exampleOf((route.operation.requestBody as { content: Record<string, { schema: Schema }> }).content['application/json'].schema);
      const reply = await t.http()[route.method](concretePath(route)).set('Authorization', admiral).send(body as object | undefined);
      assert.equal(reply.status, 200, `${route.method} ${route.path}: ${reply.text}`);
      assertKeyOrder(reply.body, documentedExample(route, '200'), `${route.method} ${route.path}`);
    }
  });

  it('gives each 401 example its keys in the order the error body has them', async () => {
    for (const route of routes.filter(({ operation }) => !isPublic(operation))) {
      const reply = await t.http()[route.method](concretePath(route));
      assert.equal(reply.status, 401);
      assert.deepEqual(Object.keys(reply.body), Object.keys(documentedExample(route, '401') as object), `${route.method} ${route.path}`);
    }
  });
});

describe('the vessel listing example', () => {
  it('shows as next_cursor the cursor the service answers for the page it documents, over the demo data', async () => {
    const t = await startTestApp({ records: demoData });
    try {
      const document: OpenAPIObject = (await t.http().get('/docs-json').expect(200)).body;
      const example = Object.fromEntries(
        Object.entries((document.components?.schemas?.VesselPageDto as SchemaObject).properties ?? {}).map(([key, property]) => [key, (property as SchemaObject).example]),
      );
      const reply = await t.http().get(`/v1/fleet/star-destroyers?limit=${example.per_page}&page=${example.page}`).set('Authorization', t.bearer('officer-1', 1)).expect(200);
      assert.equal(example.next_cursor, reply.body.data.next_cursor);
    } finally {
      await t.close();
    }
  });
});
