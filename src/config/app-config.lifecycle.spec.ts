import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigurationError, loadAppConfig } from '.';

const SECRET = 's'.repeat(32);
const AUDIT_SIGNING_KEY_FILE = resolve('test/fixtures/audit-signing-key.pem');
const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, '/srv/fleet-registry');

function refuses(env: NodeJS.ProcessEnv, variable: string) {
  assert.throws(() => load(env), (error: unknown) => error instanceof ConfigurationError && error.message.includes(variable));
}

describe('loadAppConfig: how the process runs', () => {
  it('listens on every IPv4 interface by default and on the HOST given', () => {
    assert.equal(load({}).host, '0.0.0.0');
    assert.equal(load({ HOST: '127.0.0.1' }).host, '127.0.0.1');
    assert.equal(load({ HOST: '::' }).host, '::');
  });

  it('refuses a HOST that is not an IP address', () => {
    refuses({ HOST: 'localhost:3000' }, 'HOST');
  });

  it('gives a shutdown 10 s by default, SHUTDOWN_GRACE_MS from 100 to 600000', () => {
    assert.equal(load({}).shutdownGraceMs, 10_000);
    assert.equal(load({ SHUTDOWN_GRACE_MS: '2500' }).shutdownGraceMs, 2_500);
    refuses({ SHUTDOWN_GRACE_MS: '99' }, 'SHUTDOWN_GRACE_MS');
    refuses({ SHUTDOWN_GRACE_MS: 'soon' }, 'SHUTDOWN_GRACE_MS');
  });

  it('never seeds demo data in production unless SEED_DEMO=true', () => {
    assert.equal(load({ NODE_ENV: 'production', JWT_SECRET: SECRET, AUDIT_SIGNING_KEY_FILE }).seedDemo, false);
    assert.equal(load({ NODE_ENV: 'production', JWT_SECRET: SECRET, AUDIT_SIGNING_KEY_FILE, SEED_DEMO: 'true' }).seedDemo, true);
    assert.equal(load({ NODE_ENV: 'development' }).seedDemo, true);
  });

  it('serves Swagger UI unless SWAGGER_ENABLED=false', () => {
    assert.equal(load({}).swaggerEnabled, true);
    assert.equal(load({ SWAGGER_ENABLED: 'false' }).swaggerEnabled, false);
    refuses({ SWAGGER_ENABLED: 'no' }, 'SWAGGER_ENABLED');
  });

  it('allows no cross-origin caller by default, and the comma-separated CORS_ORIGINS when set', () => {
    assert.deepEqual(load({}).corsOrigins, []);
    assert.deepEqual(load({ CORS_ORIGINS: 'https://ops.example.org, http://localhost:8080' }).corsOrigins, [
      'https://ops.example.org',
      'http://localhost:8080',
    ]);
    refuses({ CORS_ORIGINS: '*' }, 'CORS_ORIGINS');
    refuses({ CORS_ORIGINS: 'https://ops.example.org/path' }, 'CORS_ORIGINS');
  });
});
