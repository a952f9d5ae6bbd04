import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { expectErrorBody } from './support/http';
import { auditSigningKeyFile } from './support/key-files';
import { startTestApp } from './support/test-app';

/** What production asks of a test app beyond the test defaults: its own audit signing key. */
const PRODUCTION = { NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() };
const DOCS_PATHS = ['/docs', '/docs/', '/docs/swagger-ui-bundle.js', '/docs-json', '/docs-yaml'];

describe('DOCS_ENABLED and CORS_ORIGINS', () => {
  it('leads / to Swagger UI with a 302 to /docs, without a token', async () => {
    const t = await startTestApp();
    try {
      for (const res of [await t.http().get('/'), await t.http().head('/'), await t.http().get('/?from=bookmark')]) {
        assert.equal(res.status, 302);
        assert.equal(res.headers.location, '/docs');
      }
      expectErrorBody(await t.http().get('//'), 404, 'NOT_FOUND');
    } finally {
      await t.close();
    }
  });

  it('serves no /docs* with DOCS_ENABLED=false, and / is then an unknown route like any other', async () => {
    const t = await startTestApp({ env: { DOCS_ENABLED: 'false' } });
    try {
      for (const path of [...DOCS_PATHS, '/']) {
        expectErrorBody(await t.http().get(path), 404, 'NOT_FOUND');
      }
    } finally {
      await t.close();
    }
  });

  it('serves no /docs* in production unless DOCS_ENABLED=true', async () => {
    const t = await startTestApp({ env: PRODUCTION });
    try {
      for (const path of [...DOCS_PATHS, '/']) {
        expectErrorBody(await t.http().get(path), 404, 'NOT_FOUND');
      }
    } finally {
      await t.close();
    }
  });

  it('serves Swagger UI and /docs-json in production with DOCS_ENABLED=true, but no source map and no /docs-yaml', async () => {
    const t = await startTestApp({ env: { ...PRODUCTION, DOCS_ENABLED: 'true' } });
    try {
      await t.http().get('/docs').expect(200);
      await t.http().get('/docs/swagger-ui-bundle.js').expect(200);
      await t.http().get('/docs-json').expect(200);
      for (const path of ['/docs/swagger-ui-bundle.js.map', '/docs/swagger-ui.css.map', '/docs-yaml']) {
        expectErrorBody(await t.http().get(path), 404, 'NOT_FOUND');
      }
    } finally {
      await t.close();
    }
  });

  it('counts /docs* against the per-client request budget: past it, 429 RATE_LIMITED with Retry-After, as on the API', async () => {
    const limit = 20;
    const t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: String(limit) } });
    try {
      const statuses = new Map<number, number>();
      for (let sent = 1; sent <= 100; sent++) {
        const res = await t.http().get('/docs/swagger-ui-bundle.js.map');
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (sent === limit) {
          assert.equal(res.headers['x-ratelimit-remaining'], '0');
        }
        if (sent > limit && res.status === 429) {
          expectErrorBody(res, 429, 'RATE_LIMITED');
          assert.match(res.headers['retry-after'], /^[1-9][0-9]*$/);
        }
      }
      assert.deepEqual(Object.fromEntries(statuses), { 200: limit, 429: 100 - limit });
      expectErrorBody(await t.http().get('/docs-json'), 429, 'RATE_LIMITED');
      expectErrorBody(await t.http().get('/v1/fleet/star-destroyers').set('Authorization', t.bearer('admiral', 9)), 429, 'RATE_LIMITED');
    } finally {
      await t.close();
    }
  });

  it('refuses a forged X-Forwarded-For on /docs* as on the API, rather than count it as a client of its own', async () => {
    const t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true', TRUST_PROXY: '1' } });
    try {
      expectErrorBody(await t.http().get('/docs-json').set('X-Forwarded-For', 'not-an-address'), 400, 'VALIDATION_ERROR');
      await t.http().get('/docs-json').set('X-Forwarded-For', '203.0.113.7').expect(200);
    } finally {
      await t.close();
    }
  });

  it('sends no CORS headers by default', async () => {
    const t = await startTestApp();
    try {
      const res = await request(t.app.getHttpServer()).get('/health/live').set('Origin', 'https://ops.example.org');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    } finally {
      await t.close();
    }
  });

  it('answers the preflight of a listed origin only', async () => {
    const t = await startTestApp({ env: { CORS_ORIGINS: 'https://ops.example.org,http://localhost:8080' } });
    try {
      const preflight = await request(t.app.getHttpServer())
        .options('/v1/assets/TIE-0001')
        .set('Origin', 'https://ops.example.org')
        .set('Access-Control-Request-Method', 'DELETE')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://ops.example.org');
      assert.match(preflight.headers['access-control-allow-methods'], /DELETE/);
      const answer = await request(t.app.getHttpServer()).get('/health/live').set('Origin', 'https://ops.example.org');
      assert.equal(answer.headers['access-control-expose-headers'], 'X-Request-Id,Retry-After,WWW-Authenticate,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset');
      const foreign = await request(t.app.getHttpServer()).get('/health/live').set('Origin', 'https://evil.example.com');
      assert.equal(foreign.headers['access-control-allow-origin'], undefined);
    } finally {
      await t.close();
    }
  });
});
