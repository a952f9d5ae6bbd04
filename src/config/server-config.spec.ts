import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { auditSigningKeyFile } from '../../test/support/key-files';
import { loadAppConfig } from '.';

const CWD = resolve('/srv/fleet-registry');
/** Production asks for an audit signing key. */
const KEY_FILE = auditSigningKeyFile();

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig: the server', () => {
  describe('PORT', () => {
    it('reads a port as a number', () => {
      assert.equal(load({ PORT: '8080' }).port, 8080);
    });

    it('accepts the bounds 1 and 65535', () => {
      assert.equal(load({ PORT: '1' }).port, 1);
      assert.equal(load({ PORT: '65535' }).port, 65535);
    });

    for (const port of ['abc', '0', '70000', '65536', '-1', '80.5']) {
      it(`refuses PORT=${port} in one message naming PORT and the ports it takes`, () => {
        assert.throws(() => load({ PORT: port }), { message: 'Invalid configuration: PORT must be a whole number from 1 to 65535' });
      });
    }
  });

  describe('TRUST_PROXY', () => {
    it('trusts no proxy by default, up to 10 hops, or the addresses and CIDR ranges listed', () => {
      assert.equal(load({}).trustProxy, 0);
      assert.equal(load({ TRUST_PROXY: '2' }).trustProxy, 2);
      assert.deepEqual(load({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).trustProxy, ['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
      for (const value of ['11', '-1', 'yes', '10.0.0.0/33', 'fd00::/129', '10.0.0.1/8/8', '10.0.0.1,', 'proxy.example']) {
        refuses({ TRUST_PROXY: value }, 'TRUST_PROXY');
      }
    });
  });

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

  it('serves on for 5 s after a SIGTERM by default, SHUTDOWN_DELAY_MS from 0 to 600000', () => {
    assert.equal(load({}).shutdownDelayMs, 5_000);
    assert.equal(load({ SHUTDOWN_DELAY_MS: '0' }).shutdownDelayMs, 0);
    refuses({ SHUTDOWN_DELAY_MS: '-1' }, 'SHUTDOWN_DELAY_MS');
    refuses({ SHUTDOWN_DELAY_MS: '600001' }, 'SHUTDOWN_DELAY_MS');
  });

  it('serves the docs with their source maps outside production unless DOCS_ENABLED=false', () => {
    assert.equal(load({}).docsEnabled, true);
    assert.equal(load({}).docsSourceMaps, true);
    assert.equal(load({ DOCS_ENABLED: 'false' }).docsEnabled, false);
    refuses({ DOCS_ENABLED: 'no' }, 'DOCS_ENABLED');
  });

  it('serves no docs in production unless DOCS_ENABLED=true, and never their source maps there', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-at-least-32-chars', AUDIT_SIGNING_KEY_FILE: KEY_FILE };
    assert.equal(load(production).docsEnabled, false);
    assert.equal(load({ ...production, DOCS_ENABLED: 'true' }).docsEnabled, true);
    assert.equal(load({ ...production, DOCS_ENABLED: 'true' }).docsSourceMaps, false);
  });

  it('refuses SWAGGER_ENABLED, naming DOCS_ENABLED, rather than ignore it', () => {
    refuses({ SWAGGER_ENABLED: 'false' }, 'SWAGGER_ENABLED is not read: DOCS_ENABLED');
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
