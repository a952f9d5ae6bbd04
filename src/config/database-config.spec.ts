import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig, loadDatabaseConfig, type PostgresLocation, type SqliteLocation } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig: the database', () => {
  describe('DATABASE_URL', () => {
    for (const url of ['mysql://x', 'postgres:x', 'sqlite:', 'registry.sqlite']) {
      it(`refuses DATABASE_URL=${url} with a ConfigurationError naming DATABASE_URL`, () => {
        refuses({ DATABASE_URL: url }, 'DATABASE_URL');
      });
    }

    it('resolves a relative sqlite path against the working directory', () => {
      assert.deepEqual(load({ DATABASE_URL: 'sqlite:relative.db' }).database, { dialect: 'sqlite', path: resolve(CWD, 'relative.db'), createsDirectory: false });
    });

    it('keeps an absolute sqlite path', () => {
      assert.deepEqual(load({ DATABASE_URL: 'sqlite:/var/lib/registry.db' }).database, {
        dialect: 'sqlite',
        path: resolve('/var/lib/registry.db'),
        createsDirectory: false,
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

    it('creates the directory of a file in the data directory only, whether DATABASE_URL names it or is unset', () => {
      for (const env of [{}, { DATABASE_URL: 'sqlite:data/registry.sqlite' }, { DATABASE_URL: `sqlite:${CWD}/data/other.sqlite` }]) {
        assert.equal((load(env).database as SqliteLocation).createsDirectory, true, JSON.stringify(env));
      }
      for (const url of ['sqlite:registry.sqlite', 'sqlite:data/typo/registry.sqlite', 'sqlite:dta/registry.sqlite']) {
        assert.equal((load({ DATABASE_URL: url }).database as SqliteLocation).createsDirectory, false, url);
      }
    });

    it('keeps the data directory under the working directory whatever the database path', () => {
      assert.equal(load({ DATABASE_URL: 'sqlite::memory:' }).dataDir, resolve(CWD, 'data'));
    });
  });

  describe('the configuration of a command', () => {
    const others = { NODE_ENV: 'production', PORT: 'abc', SEED_DEMO: 'maybe', METRICS_TOKEN: 'short', REDIS_URL: 'x' };

    it('db:* and audit:* read DATABASE_* and MIGRATE_ON_START alone: no JWT variable in production, no check of the others', () => {
      const env = { ...others, DATABASE_URL: 'sqlite:registry.db', MIGRATE_ON_START: 'false' };
      assert.deepEqual(loadDatabaseConfig(env, CWD), {
        dataDir: resolve(CWD, 'data'),
        database: { dialect: 'sqlite', path: resolve(CWD, 'registry.db'), createsDirectory: false },
        migrateOnStart: false,
      });
      assert.throws(() => loadDatabaseConfig({ ...others, DATABASE_POOL_SIZE: '0' }, CWD), {
        message: 'Invalid configuration: DATABASE_POOL_SIZE must be a whole number from 1 to 100',
      });
    });
  });
});
