import 'reflect-metadata';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { auditSigningKeyFile } from '../../test/support/key-files';
import { publicTokenKey } from './token-keys';
import { loadAppConfig, loadTokenConfig } from '.';

const CWD = resolve('/srv/fleet-registry');
const SECRET = 's'.repeat(32);
const PEM = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const jwt = (env: NodeJS.ProcessEnv) => load(env).jwt;
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(jwt, env, ...fragments);

describe('loadAppConfig: token keys and rules', () => {
  it('reads JWT_SECRET as one key without a kid, or as a JSON object of kid to secret', () => {
    assert.deepEqual(jwt({ JWT_SECRET: SECRET }).secrets, [{ value: SECRET }]);
    assert.deepEqual(jwt({ JWT_SECRET: JSON.stringify({ old: SECRET, 'new-2': 't'.repeat(40) }) }).secrets, [
      { kid: 'old', value: SECRET },
      { kid: 'new-2', value: 't'.repeat(40) },
    ]);
  });

  it('takes the kid "" as the key for tokens without a kid, so it can stand beside named ones', () => {
    assert.deepEqual(jwt({ JWT_SECRET: JSON.stringify({ '': SECRET, next: 't'.repeat(40) }) }).secrets, [
      { value: SECRET },
      { kid: 'next', value: 't'.repeat(40) },
    ]);
  });

  it('refuses a secret shorter than 32 characters, alone or in the JSON object', () => {
    refuses({ JWT_SECRET: 's'.repeat(31) }, 'JWT_SECRET', '32');
    refuses({ JWT_SECRET: JSON.stringify({ k1: SECRET, k2: 'short' }) }, 'JWT_SECRET', '32');
  });

  for (const value of ['{not json', '{}', '{"k1": 42}', '{"k1": ""}', '{"bad kid": "x"}', '{"k1": ["x"]}']) {
    it(`refuses JWT_SECRET=${value}`, () => refuses({ JWT_SECRET: value }, 'JWT_SECRET'));
  }

  it('reads JWT_PUBLIC_KEY as PEM text or a path, alone or by kid, into a key with its algorithm', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'jwt-config-')), 'k1.pem');
    writeFileSync(file, PEM);

    assert.deepEqual(jwt({ JWT_PUBLIC_KEY: PEM }).publicKeys, [publicTokenKey(PEM)]);
    assert.deepEqual(jwt({ JWT_PUBLIC_KEY: JSON.stringify({ k1: file }) }).publicKeys, [publicTokenKey(PEM, 'k1')]);
    assert.equal(jwt({ JWT_PUBLIC_KEY: PEM }).publicKeys[0].alg, 'EdDSA');
  });

  it('refuses a JWT_PUBLIC_KEY that cannot be read or is not a public key, naming the variable and the kid', () => {
    refuses({ JWT_PUBLIC_KEY: '/nonexistent/k.pem' }, 'JWT_PUBLIC_KEY', 'ENOENT');
    refuses({ JWT_PUBLIC_KEY: JSON.stringify({ k2: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' }) }, 'JWT_PUBLIC_KEY "k2"');
  });

  it('refuses a kid named twice, and two keys without a kid', () => {
    refuses({ JWT_SECRET: JSON.stringify({ k1: SECRET }), JWT_PUBLIC_KEY: JSON.stringify({ k1: PEM }) }, 'kid');
    refuses({ JWT_SECRET: SECRET, JWT_PUBLIC_KEY: PEM }, 'kid');
  });

  it('reads JWT_JWKS_URL and its timeout and refresh interval, with defaults of 2 s and 30 s', () => {
    const config = jwt({ JWT_JWKS_URL: 'http://127.0.0.1:8080/.well-known/jwks.json' });
    assert.equal(config.jwksUrl, 'http://127.0.0.1:8080/.well-known/jwks.json');
    assert.equal(config.jwksTimeoutMs, 2_000);
    assert.equal(config.jwksRefreshSeconds, 30);
    const tuned = jwt({ JWT_JWKS_URL: 'https://idp.example/jwks', JWT_JWKS_TIMEOUT_MS: '500', JWT_JWKS_REFRESH_SECONDS: '300' });
    assert.deepEqual([tuned.jwksTimeoutMs, tuned.jwksRefreshSeconds], [500, 300]);
  });

  it('bounds the JWKS max-age at 60 s and 600 s and serves a stale set for 300 s by default, and reads all three', () => {
    const config = jwt({});
    assert.deepEqual([config.jwksMinAgeSeconds, config.jwksMaxAgeSeconds, config.jwksStaleSeconds], [60, 600, 300]);
    const tuned = jwt({ JWT_JWKS_MIN_AGE_SECONDS: '5', JWT_JWKS_MAX_AGE_SECONDS: '5', JWT_JWKS_STALE_SECONDS: '0' });
    assert.deepEqual([tuned.jwksMinAgeSeconds, tuned.jwksMaxAgeSeconds, tuned.jwksStaleSeconds], [5, 5, 0]);
  });

  it('refuses a JWKS minimum age above the maximum', () => refuses({ JWT_JWKS_MIN_AGE_SECONDS: '700' }, 'JWT_JWKS_MIN_AGE_SECONDS must not exceed'));

  for (const url of ['ftp://idp.example/jwks', 'idp.example/jwks', 'not a url']) {
    it(`refuses JWT_JWKS_URL=${url}`, () => refuses({ JWT_JWKS_URL: url }, 'JWT_JWKS_URL'));
  }

  it('defaults the clock tolerance to 30 s and the maximum lifetime to 24 h, and reads both', () => {
    assert.deepEqual([jwt({}).clockToleranceSeconds, jwt({}).maxLifetimeSeconds], [30, 86_400]);
    const tuned = jwt({ JWT_CLOCK_TOLERANCE_SECONDS: '0', JWT_MAX_LIFETIME_SECONDS: '900' });
    assert.deepEqual([tuned.clockToleranceSeconds, tuned.maxLifetimeSeconds], [0, 900]);
  });

  const outOfRange = {
    JWT_CLOCK_TOLERANCE_SECONDS: ['-1', '301', '1.5', 'abc'],
    JWT_MAX_LIFETIME_SECONDS: ['59', '2592001', 'forever'],
    JWT_JWKS_TIMEOUT_MS: ['99', '30001'],
    JWT_JWKS_REFRESH_SECONDS: ['0', '86401'],
    JWT_JWKS_MIN_AGE_SECONDS: ['0', '86401'],
    JWT_JWKS_MAX_AGE_SECONDS: ['0', '86401'],
    JWT_JWKS_STALE_SECONDS: ['-1', '86401'],
  };
  for (const [variable, values] of Object.entries(outOfRange)) {
    for (const value of values) {
      it(`refuses ${variable}=${value}`, () => refuses({ [variable]: value }, variable));
    }
  }

  it('runs in production with only JWT_PUBLIC_KEY or only JWT_JWKS_URL, and refuses none of the three', () => {
    const AUDIT_SIGNING_KEY_FILE = auditSigningKeyFile();
    assert.deepEqual(jwt({ NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE, JWT_PUBLIC_KEY: PEM }).secrets, []);
    assert.equal(jwt({ NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE, JWT_JWKS_URL: 'https://idp.example/jwks' }).publicKeys.length, 0);
    refuses({ NODE_ENV: 'production' }, 'JWT_SECRET', 'JWT_PUBLIC_KEY', 'JWT_JWKS_URL');
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

  describe('the configuration of the token command', () => {
    const others = { NODE_ENV: 'production', PORT: 'abc', SEED_DEMO: 'maybe', METRICS_TOKEN: 'short', REDIS_URL: 'x' };

    it('token reads JWT_* and NODE_ENV alone, production still requiring a key', () => {
      assert.deepEqual(loadTokenConfig({ ...others, JWT_SECRET: SECRET }, CWD).jwt.secrets, [{ value: SECRET }]);
      assert.throws(() => loadTokenConfig(others, CWD), /JWT_SECRET is required when NODE_ENV=production/);
      assert.throws(() => loadTokenConfig({ JWT_SECRET: 'short' }, CWD), /JWT_SECRET must be at least 32 characters/);
    });
  });
});
