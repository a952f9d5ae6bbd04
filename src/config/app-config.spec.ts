import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { type AppConfig, ConfigurationError, loadAppConfig, loadDatabaseConfig, loadTokenConfig, loadTracingConfig, type PostgresLocation } from '.';

const CWD = resolve('/srv/fleet-registry');
const SECRET = 's'.repeat(32);
const AUDIT_KEY = resolve('test/fixtures/audit-signing-key.pem');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);

/** Asserts a ConfigurationError whose message names every given variable. */
function refuses(env: NodeJS.ProcessEnv, ...variables: string[]) {
  assert.throws(
    () => load(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationError, `expected ConfigurationError, got ${String(error)}`);
      assert.match(error.message, /^Invalid configuration: /);
      for (const variable of variables) {
        assert.ok(error.message.includes(variable), `the message names ${variable}: ${error.message}`);
      }
      return true;
    },
  );
}

describe('loadAppConfig', () => {
  it('falls back to port 3000, data/registry.sqlite under the working directory and the demo seed', () => {
    const expected: AppConfig = {
      port: 3000,
      host: '0.0.0.0',
      shutdownGraceMs: 10_000,
      production: false,
      dataDir: resolve(CWD, 'data'),
      database: { dialect: 'sqlite', path: resolve(CWD, 'data', 'registry.sqlite') },
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
        logOrigin: 'fleet-registry.invalid/audit',
        checkpointIntervalMs: 1_000,
        batchLimit: 500, sequencerIntervalMs: 5, takeoverIntervalMs: 500, sequencingTimeoutMs: 10_000, readinessLagMs: 2_000,
      },
      swaggerEnabled: true,
      corsOrigins: [],
      logLevel: 'info',
      metricsToken: undefined,
      decommissionApproval: { policy: 'none', ttlSeconds: 86_400 },
      tracing: undefined,
    };

    assert.deepEqual(load({}), expected);
  });

  it('ignores unrelated environment variables', () => {
    assert.deepEqual(load({ HOME: '/root', PATH: '/usr/bin', PORT_FORWARD: 'abc' }), load({}));
  });

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

  describe('DATABASE_URL', () => {
    for (const url of ['mysql://x', 'postgres:x', 'sqlite:', 'registry.sqlite']) {
      it(`refuses DATABASE_URL=${url} with a ConfigurationError naming DATABASE_URL`, () => {
        refuses({ DATABASE_URL: url }, 'DATABASE_URL');
      });
    }

    it('resolves a relative sqlite path against the working directory', () => {
      assert.deepEqual(load({ DATABASE_URL: 'sqlite:relative.db' }).database, { dialect: 'sqlite', path: resolve(CWD, 'relative.db') });
    });

    it('keeps an absolute sqlite path', () => {
      assert.deepEqual(load({ DATABASE_URL: 'sqlite:/var/lib/registry.db' }).database, {
        dialect: 'sqlite',
        path: resolve('/var/lib/registry.db'),
      });
    });

    it('selects PostgreSQL for postgres:// and postgresql:// URLs, with a pool of 20 by default', () => {
      for (const url of ['postgres://fleet@db:5432/registry', 'postgresql://fleet:pw@db/registry?sslmode=require']) {
        const { timeouts, ...location } = load({ DATABASE_URL: url }).database as PostgresLocation;
        assert.deepEqual(location, { dialect: 'postgres', url, poolSize: 20 });
        assert.ok(timeouts);
      }
    });

    it('sizes the PostgreSQL pool with DATABASE_POOL_SIZE, 1 to 100', () => {
      const url = 'postgres://db/registry';
      assert.equal((load({ DATABASE_URL: url, DATABASE_POOL_SIZE: '25' }).database as PostgresLocation).poolSize, 25);
      for (const size of ['0', '101', 'many', '2.5']) {
        refuses({ DATABASE_URL: url, DATABASE_POOL_SIZE: size }, 'DATABASE_POOL_SIZE');
      }
    });
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

  describe('rate limits', () => {
    it('limits by default, with counts a minute and Redis when REDIS_URL names one', () => {
      const sut = load({ RATE_LIMIT_REQUESTS_PER_MINUTE: '50', RATE_LIMIT_DENIALS_PER_MINUTE: '5', RATE_LIMIT_IPV6_PREFIX: '56', REDIS_URL: 'redis://127.0.0.1:6379' });

      assert.deepEqual(sut.rateLimit, { enabled: true, requestsPerMinute: 50, denialsPerMinute: 5, ipv6Prefix: 56, redisUrl: 'redis://127.0.0.1:6379' });
      assert.equal(load({ RATE_LIMIT_ENABLED: 'false' }).rateLimit.enabled, false);
    });

    it('refuses counts that are not positive integers and a REDIS_URL that is not redis://', () => {
      for (const value of ['0', '-5', '1.5', 'lots']) {
        refuses({ RATE_LIMIT_REQUESTS_PER_MINUTE: value }, 'RATE_LIMIT_REQUESTS_PER_MINUTE');
        refuses({ RATE_LIMIT_DENIALS_PER_MINUTE: value }, 'RATE_LIMIT_DENIALS_PER_MINUTE');
      }
      refuses({ RATE_LIMIT_ENABLED: 'no' }, 'RATE_LIMIT_ENABLED');
      for (const value of ['15', '129', '64.5']) {
        refuses({ RATE_LIMIT_IPV6_PREFIX: value }, 'RATE_LIMIT_IPV6_PREFIX');
      }
      refuses({ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL');
    });
  });

  describe('audit sequencing', () => {
    it('batches up to 500 events, looks again after 5 ms, takes over within 500 ms, waits 10 s and is unready past 2 s by default', () => {
      assert.deepEqual(load({}).audit, {
        signingKey: undefined,
        logOrigin: 'fleet-registry.invalid/audit',
        checkpointIntervalMs: 1_000,
        batchLimit: 500,
        sequencerIntervalMs: 5,
        takeoverIntervalMs: 500,
        sequencingTimeoutMs: 10_000,
        readinessLagMs: 2_000,
      });
      const sut = load({
        AUDIT_BATCH_LIMIT: '100',
        AUDIT_SEQUENCER_INTERVAL_MS: '20',
        AUDIT_TAKEOVER_INTERVAL_MS: '1000',
        AUDIT_SEQUENCING_TIMEOUT_MS: '3000',
        AUDIT_READINESS_LAG_MS: '500',
      });
      assert.deepEqual(sut.audit, {
        signingKey: undefined,
        logOrigin: 'fleet-registry.invalid/audit',
        checkpointIntervalMs: 1_000,
        batchLimit: 100,
        sequencerIntervalMs: 20,
        takeoverIntervalMs: 1_000,
        sequencingTimeoutMs: 3_000,
        readinessLagMs: 500,
      });
    });

    it('reads the checkpoint signing key, origin and interval', () => {
      const sut = load({ AUDIT_SIGNING_KEY_FILE: AUDIT_KEY, AUDIT_LOG_ORIGIN: 'registry.example.org/audit', AUDIT_CHECKPOINT_INTERVAL_MS: '250' }).audit;
      assert.equal(sut.signingKey?.asymmetricKeyType, 'ed25519');
      assert.deepEqual([sut.logOrigin, sut.checkpointIntervalMs], ['registry.example.org/audit', 250]);
    });

    it('refuses production without AUDIT_SIGNING_KEY_FILE, saying how to make one', () => {
      refuses({ NODE_ENV: 'production', JWT_SECRET: SECRET }, 'AUDIT_SIGNING_KEY_FILE is required when NODE_ENV=production', 'openssl genpkey -algorithm ed25519');
    });

    it('refuses a missing key file, a file that is no key, and a key that is not Ed25519', () => {
      refuses({ AUDIT_SIGNING_KEY_FILE: '/nowhere/key.pem' }, 'AUDIT_SIGNING_KEY_FILE /nowhere/key.pem: no such file');
      refuses({ AUDIT_SIGNING_KEY_FILE: resolve('package.json') }, 'not a private key in PEM');
      refuses({ AUDIT_SIGNING_KEY_FILE: resolve('test/fixtures/rsa-private-key.pem') }, 'an Ed25519 key is needed, this is rsa');
    });

    it('refuses an origin with a space or a "+", and an interval out of 100..3600000', () => {
      refuses({ AUDIT_LOG_ORIGIN: 'my log' }, 'AUDIT_LOG_ORIGIN');
      refuses({ AUDIT_LOG_ORIGIN: 'a+b' }, 'AUDIT_LOG_ORIGIN');
      refuses({ AUDIT_CHECKPOINT_INTERVAL_MS: '99' }, 'AUDIT_CHECKPOINT_INTERVAL_MS');
    });

    it('refuses values out of range, and a wait no longer than the takeover interval', () => {
      for (const [variable, values] of [
        ['AUDIT_BATCH_LIMIT', ['0', '2001', '1.5']],
        ['AUDIT_SEQUENCER_INTERVAL_MS', ['0', '1001', 'soon']],
        ['AUDIT_TAKEOVER_INTERVAL_MS', ['49', '60001']],
        ['AUDIT_SEQUENCING_TIMEOUT_MS', ['99', '600001']],
        ['AUDIT_READINESS_LAG_MS', ['99', '600001']],
      ] as const) {
        for (const value of values) {
          refuses({ [variable]: value }, variable);
        }
      }
      refuses({ AUDIT_TAKEOVER_INTERVAL_MS: '2000', AUDIT_SEQUENCING_TIMEOUT_MS: '2000' }, 'AUDIT_SEQUENCING_TIMEOUT_MS', 'AUDIT_TAKEOVER_INTERVAL_MS');
    });
  });

  describe('CLOCK_SKEW_MAX_MS', () => {
    it('reads the bound on the clock skew, 100 to 3600000 ms', () => {
      assert.equal(load({ CLOCK_SKEW_MAX_MS: '250' }).clockSkewMaxMs, 250);
      for (const value of ['99', '3600001', '5s']) {
        refuses({ CLOCK_SKEW_MAX_MS: value }, 'CLOCK_SKEW_MAX_MS');
      }
    });
  });

  describe('MIGRATE_ON_START', () => {
    it('migrates at start-up unless MIGRATE_ON_START=false', () => {
      assert.equal(load({}).migrateOnStart, true);
      assert.equal(load({ MIGRATE_ON_START: 'true' }).migrateOnStart, true);
      assert.equal(load({ MIGRATE_ON_START: 'false' }).migrateOnStart, false);
      refuses({ MIGRATE_ON_START: 'no' }, 'MIGRATE_ON_START');
    });

    it('keeps sqlite::memory: as the in-memory database', () => {
      assert.deepEqual(load({ DATABASE_URL: 'sqlite::memory:' }).database, { dialect: 'sqlite', path: ':memory:' });
    });

    it('keeps the data directory under the working directory whatever the database path', () => {
      assert.equal(load({ DATABASE_URL: 'sqlite::memory:' }).dataDir, resolve(CWD, 'data'));
    });
  });

  describe('JWT', () => {
    it('refuses a JWT_SECRET shorter than 32 characters', () => {
      refuses({ JWT_SECRET: 's'.repeat(31) }, 'JWT_SECRET', '32');
    });

    it('accepts a JWT_SECRET of 32 characters', () => {
      assert.deepEqual(load({ JWT_SECRET: SECRET }).jwt.secrets, [{ value: SECRET }]);
    });

    it('passes JWT_ISSUER and JWT_AUDIENCE through', () => {
      const { issuer, audience } = load({ JWT_ISSUER: 'command', JWT_AUDIENCE: 'registry' }).jwt;
      assert.deepEqual({ issuer, audience }, { issuer: 'command', audience: 'registry' });
    });
  });

  describe('NODE_ENV', () => {
    it('refuses NODE_ENV=production without a JWT_SECRET', () => {
      refuses({ NODE_ENV: 'production' }, 'JWT_SECRET', 'NODE_ENV=production');
    });

    it('runs in production with a JWT_SECRET', () => {
      const config = load({ NODE_ENV: 'production', JWT_SECRET: SECRET, AUDIT_SIGNING_KEY_FILE: resolve('test/fixtures/audit-signing-key.pem') });

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

  describe('LOG_LEVEL', () => {
    it('takes each level by name', () => {
      for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace']) {
        assert.equal(load({ LOG_LEVEL: level }).logLevel, level);
      }
    });

    for (const level of ['verbose', 'INFO', 'log']) {
      it(`refuses LOG_LEVEL=${level}, naming LOG_LEVEL`, () => {
        refuses({ LOG_LEVEL: level }, 'LOG_LEVEL');
      });
    }
  });

  describe('METRICS_TOKEN', () => {
    it('takes a token of 16 printable characters or more', () => {
      assert.equal(load({ METRICS_TOKEN: 'a'.repeat(16) }).metricsToken, 'a'.repeat(16));
    });

    for (const [name, token] of [['a short', 'a'.repeat(15)], ['a spaced', 'metrics token with spaces']]) {
      it(`refuses ${name} METRICS_TOKEN, naming METRICS_TOKEN`, () => {
        refuses({ METRICS_TOKEN: token }, 'METRICS_TOKEN');
      });
    }
  });

  describe('OpenTelemetry traces', () => {
    const ENDPOINT = 'http://collector:4318';

    it('are off unless an OTLP endpoint or a trace exporter is named, and named fleet-registry by default', () => {
      assert.equal(load({ OTEL_SERVICE_NAME: 'registry-eu' }).tracing, undefined);
      assert.deepEqual(load({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }).tracing, { serviceName: 'fleet-registry' });
      assert.deepEqual(load({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }).tracing, { serviceName: 'fleet-registry' });
      assert.deepEqual(load({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'registry-eu' }).tracing, { serviceName: 'registry-eu' });
    });

    it('stay off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever the endpoint', () => {
      assert.equal(load({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }).tracing, undefined);
      assert.equal(load({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).tracing, undefined);
    });

    it('refuses an endpoint that is not an http(s) URL, an unknown protocol and an unknown exporter, naming each', () => {
      refuses(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http', OTEL_TRACES_EXPORTER: 'jaeger' },
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_PROTOCOL',
        'OTEL_TRACES_EXPORTER',
      );
    });

    it('are read alone before start-up, with the OTEL_* variables only', () => {
      assert.deepEqual(loadTracingConfig({ PORT: 'abc', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }), { serviceName: 'fleet-registry' });
      assert.equal(loadTracingConfig({ PORT: 'abc' }), undefined);
    });
  });

  describe('DECOMMISSION_APPROVAL', () => {
    it('requires approval with DECOMMISSION_APPROVAL=required, for DECOMMISSION_APPROVAL_TTL', () => {
      assert.deepEqual(load({ DECOMMISSION_APPROVAL: 'required', DECOMMISSION_APPROVAL_TTL: '60m' }).decommissionApproval, {
        policy: 'required',
        ttlSeconds: 3_600,
      });
    });

    it('reads the TTL in seconds, minutes, hours or days', () => {
      for (const [ttl, seconds] of [['1s', 1], ['90m', 5_400], ['24h', 86_400], ['30d', 2_592_000]] as const) {
        assert.equal(load({ DECOMMISSION_APPROVAL_TTL: ttl }).decommissionApproval.ttlSeconds, seconds);
      }
    });

    it('refuses another policy, and a TTL without its unit, of zero or over 30 days, in one message naming both', () => {
      assert.throws(() => load({ DECOMMISSION_APPROVAL: 'maybe', DECOMMISSION_APPROVAL_TTL: '0s' }), {
        message:
          'Invalid configuration: DECOMMISSION_APPROVAL must be one of the following values: none, required; ' +
          'DECOMMISSION_APPROVAL_TTL must be a duration with its unit (s, m, h or d), such as 24h, 90m or 7d, up to 30d',
      });
      for (const ttl of ['3600', '31d', '1.5h', '24 h', '-1h']) {
        refuses({ DECOMMISSION_APPROVAL_TTL: ttl }, 'DECOMMISSION_APPROVAL_TTL');
      }
    });
  });

  describe('SEED_DEMO', () => {
    it('turns the demo seed off with SEED_DEMO=false', () => {
      assert.equal(load({ SEED_DEMO: 'false' }).seedDemo, false);
    });

    it('keeps the demo seed on with SEED_DEMO=true', () => {
      assert.equal(load({ SEED_DEMO: 'true' }).seedDemo, true);
    });

    for (const value of ['maybe', '0', 'FALSE']) {
      it(`refuses SEED_DEMO=${value}`, () => {
        refuses({ SEED_DEMO: value }, 'SEED_DEMO');
      });
    }
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

describe('the configuration of a command', () => {
  const others = { NODE_ENV: 'production', PORT: 'abc', SEED_DEMO: 'maybe', METRICS_TOKEN: 'short', REDIS_URL: 'x' };

  it('db:* and audit:* read DATABASE_* and MIGRATE_ON_START alone: no JWT variable in production, no check of the others', () => {
    const env = { ...others, DATABASE_URL: 'sqlite:registry.db', MIGRATE_ON_START: 'false' };
    assert.deepEqual(loadDatabaseConfig(env, CWD), {
      dataDir: resolve(CWD, 'data'),
      database: { dialect: 'sqlite', path: resolve(CWD, 'registry.db') },
      migrateOnStart: false,
    });
    assert.throws(() => loadDatabaseConfig({ ...others, DATABASE_POOL_SIZE: '0' }, CWD), {
      message: 'Invalid configuration: DATABASE_POOL_SIZE must be a whole number from 1 to 100',
    });
  });

  it('token reads JWT_* and NODE_ENV alone, production still requiring a key', () => {
    assert.deepEqual(loadTokenConfig({ ...others, JWT_SECRET: SECRET }, CWD).jwt.secrets, [{ value: SECRET }]);
    assert.throws(() => loadTokenConfig(others, CWD), /JWT_SECRET is required when NODE_ENV=production/);
    assert.throws(() => loadTokenConfig({ JWT_SECRET: 'short' }, CWD), /JWT_SECRET must be at least 32 characters/);
  });
});
