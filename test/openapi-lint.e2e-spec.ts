import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenAPIObject, ResponseObject } from '@nestjs/swagger';
import { concretePath, isPublic, routesOf } from './support/openapi';
import { describeFindings, type LintFinding, lintOpenApiDocument, OPENAPI_LINT_ENV } from './support/openapi-lint';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The document the running service serves (/docs-json), linted as API teams lint theirs: Spectral's
 * spectral:oas and OWASP API Security rules (.spectral.yaml) and Redocly's recommended rules
 * (redocly.yaml). `npm run lint:openapi` prints the same findings.
 */
describe('the served OpenAPI document, linted', () => {
  let t: TestApp;
  let document: OpenAPIObject;
  let findings: LintFinding[];

  before(async () => {
    t = await startTestApp({ records: null, env: OPENAPI_LINT_ENV });
    document = (await t.http().get('/docs-json').expect(200)).body;
    findings = await lintOpenApiDocument(document);
  });
  after(() => t.close());

  it('has no error and no warning under Spectral (spectral:oas and the OWASP API Security ruleset) or Redocly (recommended)', () => {
    // A rule that does not fit is switched off in .spectral.yaml or redocly.yaml with its reason, not left to warn.
    assert.deepEqual(findings, [], describeFindings(findings));
  });

  it('describes the headers the service really sends: each documented header of a 401, and of liveness, is on the answer', async () => {
    const origin = OPENAPI_LINT_ENV.CORS_ORIGINS;
    const answered = routesOf(document)
      .filter(({ operation }) => !isPublic(operation))
      .map((route) => ({ route, status: '401', request: t.http()[route.method](concretePath(route)) }));
    const live = routesOf(document).find(({ path }) => path === '/health/live');
    assert.ok(live);
    for (const { route, status, request } of [...answered, { route: live, status: '200', request: t.http().get('/health/live') }]) {
      const reply = await request.set('Origin', origin);
      assert.equal(String(reply.status), status, `${route.method} ${route.path}`);
      const documented = Object.keys((route.operation.responses[status] as ResponseObject).headers ?? {}).map((name) => name.toLowerCase());
      assert.deepEqual(documented.filter((name) => !(name in reply.headers)), [], `${route.method} ${route.path} ${status} sends every header it documents`);
      if (status === '401') {
        assert.ok(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'access-control-allow-origin'].every((name) => documented.includes(name)), `${route.method} ${route.path}`);
      }
    }
    const liveHeaders = Object.keys((live.operation.responses['200'] as ResponseObject).headers ?? {});
    assert.ok(!liveHeaders.includes('X-RateLimit-Limit'), 'liveness is not rate limited, and says so');
    assert.ok(liveHeaders.includes('Access-Control-Allow-Origin'));
  });

  it('would fail on what the issue found: no servers, an unbounded string, no rate-limit headers on a success', async () => {
    // The rules are loaded, the OWASP ones included: the same document with those defects back is refused.
    const broken = structuredClone(document);
    broken.servers = [];
    const assetDto = broken.components?.schemas?.AssetDto as { properties: Record<string, { maxLength?: number; pattern?: string }> };
    delete assetDto.properties.asset_id.maxLength;
    const listing = broken.paths['/v1/assets'].get?.responses['200'] as { headers: Record<string, unknown> };
    delete listing.headers['X-RateLimit-Limit'];
    const rules = (await lintOpenApiDocument(broken)).filter((finding) => finding.severity === 'error').map(({ linter, rule }) => `${linter} ${rule}`);
    assert.deepEqual([...new Set(rules)].sort(), ['redocly no-empty-servers', 'spectral owasp:api4:2023-rate-limit', 'spectral owasp:api4:2023-string-limit']);
  });
});
