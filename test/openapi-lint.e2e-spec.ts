import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenAPIObject } from '@nestjs/swagger';
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

  it('has no error under Spectral (spectral:oas and the OWASP API Security ruleset) or Redocly (recommended)', () => {
    const errors = findings.filter((finding) => finding.severity === 'error');
    assert.deepEqual(errors, [], describeFindings(errors));
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
