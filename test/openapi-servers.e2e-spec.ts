import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenAPIObject, ServerObject } from '@nestjs/swagger';
import { concretePath, routesOf } from './support/openapi';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';

/**
 * The document's servers and tags against the routes: Swagger UI's Try it out sends each operation to
 * the server picked for it, so every server an operation lists must serve it. Routing does not depend
 * on the engine, so one SQLite app answers.
 */
describe('the OpenAPI document, servers and tags', () => {
  let t: TestApp;
  let document: OpenAPIObject;

  before(async () => {
    t = await startTestApp();
    document = (await t.http().get('/docs-json').expect(200)).body;
  });
  after(() => t.close());

  /** The servers that apply to an operation: its path item's own, else the document's (OpenAPI 3.1, 4.8.9). */
  const serversOf = (path: string): ServerObject[] => document.paths[path].servers ?? document.servers ?? [];

  it('serves every documented operation under every server documented for it: no answer is the unknown route 404', async () => {
    const base = await listenOnLoopback(t);
    const admiral = t.bearer('admiral-9', 9);
    const unrouted: string[] = [];
    let requests = 0;
    for (const route of routesOf(document)) {
      for (const { url } of serversOf(route.path)) {
        const target = `${url.replace(/\/$/, '')}${concretePath(route)}`;
        // fetch answers at the headers: the audit stream's body never ends.
        const reply = await fetch(`${base}${target}`, { method: route.method.toUpperCase(), headers: { Authorization: admiral } });
        requests += 1;
        // A 404 of the domain (ASSET_NOT_FOUND, DECOMMISSION_REQUEST_NOT_FOUND...) is an answer of the route; NOT_FOUND is no route at all.
        if (reply.status !== 404) {
          await reply.body?.cancel();
        } else if (((await reply.json()) as { error_code?: string }).error_code === 'NOT_FOUND') {
          unrouted.push(`${route.method.toUpperCase()} ${target} (server ${url})`);
        }
      }
    }
    assert.ok(requests > routesOf(document).length, 'some operation is documented under more than one server');
    assert.deepEqual(unrouted, []);
  });

  it('declares every tag the operations use, and uses every tag it declares', () => {
    const used = new Set(routesOf(document).flatMap(({ operation }) => operation.tags ?? []));
    const declared = new Set((document.tags ?? []).map(({ name }) => name));
    assert.deepEqual([...used].filter((tag) => !declared.has(tag)), [], 'used but not declared');
    assert.deepEqual([...declared].filter((tag) => !used.has(tag)), [], 'declared but not used');
  });
});
