import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { auditSigningKeyFile } from '../../test/support/key-files';
import { type AppConfig, loadAppConfig } from '.';

const CWD = resolve('/srv/fleet-registry');
const SECRET = 's'.repeat(32);

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig', () => {
  it('falls back to port 3000, data/registry.sqlite under the working directory and the demo seed', () => {
    const expected: AppConfig = {
      port: 3000,
      host: '0.0.0.0',
      shutdownGraceMs: 10_000,
      shutdownDelayMs: 5_000,
      production: false,
      dataDir: resolve(CWD, 'data'),
      database: { dialect: 'sqlite', path: resolve(CWD, 'data', 'registry.sqlite'), createsDirectory: true },
      migrateOnStart: true,
      clockSkewMaxMs: 5_000,
      jwt: {
        secrets: [],
        publicKeys: [],
        jwksUrl: undefined,
        jwksTimeoutMs: 2_000,
        jwksRefreshSeconds: 30,
        jwksMinAgeSeconds: 60,
        jwksMaxAgeSeconds: 600,
        jwksStaleSeconds: 300,
        issuer: undefined,
        audience: undefined,
        clockToleranceSeconds: 30,
        maxLifetimeSeconds: 86_400,
      },
      seedDemo: true,
      trustProxy: 0,
      rateLimit: { enabled: true, requestsPerMinute: 1_200, denialsPerMinute: 30, ipv6Prefix: 64, redisUrl: undefined },
      audit: {
        signingKey: undefined,
        signingKeyWarning: undefined,
        logOrigin: 'fleet-registry.invalid/audit',
        checkpointIntervalMs: 1_000,
        batchLimit: 500, sequencerIntervalMs: 1_000, takeoverIntervalMs: 500, sequencingTimeoutMs: 10_000, readinessLagMs: 2_000,
        verificationsMax: 2,
        tilesPublic: false,
      },
      docsEnabled: true,
      docsSourceMaps: true,
      corsOrigins: [],
      logLevel: 'info',
      metricsToken: undefined,
      decommissionApproval: { policy: undefined, ttlSeconds: 86_400, requestsPerOfficer: 5 },
      delivery: {
        timeoutMs: 10_000, retryBaseMs: 1_000, maxAttempts: 15, leaseMs: 15_000, allowHttp: false, allowPrivateNetworks: false, subscriptionsMax: 100,
        secretKey: undefined, generatesSecretKey: true, syslog: undefined,
      },
      idempotency: { ttlSeconds: 86_400 },
      tracing: undefined,
      witnesses: { witnesses: [], quorum: 0, maxAgeSeconds: 600 },
    };

    assert.deepEqual(load({}), expected);
  });

  it('ignores unrelated environment variables', () => {
    assert.deepEqual(load({ HOME: '/root', PATH: '/usr/bin', PORT_FORWARD: 'abc' }), load({}));
  });

  describe('NODE_ENV', () => {
    it('refuses NODE_ENV=production without a JWT_SECRET', () => {
      refuses({ NODE_ENV: 'production' }, 'JWT_SECRET', 'NODE_ENV=production');
    });

    it('runs in production with a JWT_SECRET', () => {
      const config = load({ NODE_ENV: 'production', JWT_SECRET: SECRET, AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile() });

      assert.equal(config.production, true);
      assert.deepEqual(config.jwt.secrets, [{ value: SECRET }]);
    });

    for (const env of ['development', 'test']) {
      it(`is not production with NODE_ENV=${env}`, () => {
        assert.equal(load({ NODE_ENV: env }).production, false);
      });
    }

    it('refuses an unknown NODE_ENV', () => {
      refuses({ NODE_ENV: 'staging' }, 'NODE_ENV');
    });
  });

  describe('empty variables', () => {
    it('counts empty strings as unset', () => {
      const empty = { PORT: '', NODE_ENV: '', DATABASE_URL: '', JWT_SECRET: '', JWT_ISSUER: '', JWT_AUDIENCE: '', SEED_DEMO: '' };

      assert.deepEqual(load(empty), load({}));
    });

    it('counts an empty JWT_SECRET as missing in production', () => {
      refuses({ NODE_ENV: 'production', JWT_SECRET: '' }, 'JWT_SECRET');
    });
  });

  it('names every bad variable in one message, once each', () => {
    refuses({ PORT: 'abc', DATABASE_URL: 'mysql://x', SEED_DEMO: 'maybe' }, 'PORT', 'DATABASE_URL', 'SEED_DEMO');
    assert.throws(() => load({ PORT: 'abc', DATABASE_POOL_SIZE: '0' }), {
      message: 'Invalid configuration: PORT must be a whole number from 1 to 65535; DATABASE_POOL_SIZE must be a whole number from 1 to 100',
    });
  });
});
