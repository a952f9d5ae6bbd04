import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import { expectErrorBody } from './support/http';
import { startTestApp } from './support/test-app';

describe('SWAGGER_ENABLED and CORS_ORIGINS', () => {
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

  it('serves no /docs with SWAGGER_ENABLED=false, and / is then an unknown route like any other', async () => {
    const t = await startTestApp({ env: { SWAGGER_ENABLED: 'false' } });
    try {
      assert.equal((await request(t.app.getHttpServer()).get('/docs')).status, 404);
      assert.equal((await request(t.app.getHttpServer()).get('/docs-json')).status, 404);
      expectErrorBody(await t.http().get('/'), 404, 'NOT_FOUND');
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
