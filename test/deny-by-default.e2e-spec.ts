import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createOpenApiDocument } from '../src/bootstrap';
import { describeEachDatabase } from './support/databases';
import { expectErrorBody } from './support/http';
import { concretePath, isPublic, OPERATION_METHODS, type Route, routesOf } from './support/openapi';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Reads the routes from the OpenAPI document the service serves, built as src/swagger.ts builds it, so
 * a new route is covered here without editing this test.
 */
describeEachDatabase('deny by default, route by route from the OpenAPI document', (engine) => {
  let t: TestApp;
  let routes: Route[];

  before(async () => {
    t = await startTestApp({ engine });
    routes = routesOf(createOpenApiDocument(t.app));
  });
  after(() => t.close());

  it('finds the routes, and public ones are only those marked @Public(): the health checks and /metrics (which has a token of its own)', () => {
    assert.ok(routes.length >= 6, `${routes.length} routes`);
    assert.deepEqual(
      routes.filter(({ operation }) => isPublic(operation)).map(({ method, path }) => `${method} ${path}`).sort(),
      ['get /health/live', 'get /health/ready', 'get /metrics'],
    );
  });

  it('answers every operation that is not public 401 without a token, under /v1 and /api/v1, and records each refusal', async () => {
    for (const route of routes.filter(({ operation }) => !isPublic(operation))) {
      for (const prefix of ['', route.path.startsWith('/v1/') ? '/api' : null].filter((p) => p !== null)) {
        const before = await t.db.selectFrom('audit_events').select('id').orderBy('id', 'desc').executeTakeFirst();
        const res = await t.http()[route.method](`${prefix}${concretePath(route)}`);
        expectErrorBody(res, 401, 'UNAUTHENTICATED');
        assert.equal(res.headers['www-authenticate'], 'Bearer', `${route.method} ${route.path}`);
        const event = await t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
        assert.notEqual(event.id, before?.id, `${route.method} ${route.path} is audited`);
        assert.equal(event.request_id, res.headers['x-request-id']);
        assert.equal(event.reason, 'TOKEN_MISSING');
      }
    }
  });

  it('answers the public operations without a token', async () => {
    for (const route of routes.filter(({ operation }) => isPublic(operation))) {
      const res = await t.http()[route.method](concretePath(route));
      assert.ok(res.status < 400, `${route.method} ${route.path}: ${res.status}`);
    }
  });

  it('documents every route Express serves (the docs, and the `/` that leads to them, aside), so none escapes this walk', () => {
    type Layer = { route?: { path: string; methods: Record<string, boolean> } };
    const stack = (t.app.getHttpAdapter().getInstance() as { router: { stack: Layer[] } }).router.stack;
    const documented = new Set(routes.map(({ method, path }) => `${method} ${path}`));
    const served = stack
      // One registration that serves more methods than any operation could is the 405 catch-all.
      .filter(({ route }) => route && Object.keys(route.methods).length <= OPERATION_METHODS.length)
      .flatMap(({ route }) => Object.keys(route?.methods ?? {}).map((method) => `${method} ${route?.path}`))
      .filter((route) => !/ \/(docs|$)/.test(route))
      // A parameter :name, or a wildcard *name (one or more segments), is {name} in the document.
      .map((route) => route.replace(/[:*](\w+)/g, '{$1}'));
    assert.ok(served.length >= routes.length);
    for (const route of served) {
      assert.ok(documented.has(route), `${route} is in the OpenAPI document`);
    }
  });
});
