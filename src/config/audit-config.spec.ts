import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig, loadCheckpointKeyConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);
const SECRET = 's'.repeat(32);
const AUDIT_KEY = resolve('test/fixtures/audit-signing-key.pem');

describe('loadAppConfig: the audit trail', () => {
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
        verificationsMax: 2,
      });
      const sut = load({
        AUDIT_BATCH_LIMIT: '100',
        AUDIT_SEQUENCER_INTERVAL_MS: '20',
        AUDIT_TAKEOVER_INTERVAL_MS: '1000',
        AUDIT_SEQUENCING_TIMEOUT_MS: '3000',
        AUDIT_READINESS_LAG_MS: '500',
        AUDIT_VERIFICATIONS_MAX: '4',
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
        verificationsMax: 4,
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
        ['AUDIT_VERIFICATIONS_MAX', ['0', '33', 'two']],
      ] as const) {
        for (const value of values) {
          refuses({ [variable]: value }, variable);
        }
      }
      refuses({ AUDIT_TAKEOVER_INTERVAL_MS: '2000', AUDIT_SEQUENCING_TIMEOUT_MS: '2000' }, 'AUDIT_SEQUENCING_TIMEOUT_MS', 'AUDIT_TAKEOVER_INTERVAL_MS');
    });
  });

  describe('the configuration of audit:verify --checkpoint', () => {
    it('reads AUDIT_SIGNING_KEY_FILE and AUDIT_LOG_ORIGIN alone: no key required in production, no check of the others', () => {
      const others = { NODE_ENV: 'production', AUDIT_BATCH_LIMIT: '0', AUDIT_CHECKPOINT_INTERVAL_MS: '1' };
      assert.deepEqual(loadCheckpointKeyConfig(others, CWD), { signingKey: undefined, logOrigin: 'fleet-registry.invalid/audit' });
      const sut = loadCheckpointKeyConfig({ ...others, AUDIT_SIGNING_KEY_FILE: AUDIT_KEY, AUDIT_LOG_ORIGIN: 'registry.example.org/audit' }, CWD);
      assert.deepEqual([sut.signingKey?.asymmetricKeyType, sut.logOrigin], ['ed25519', 'registry.example.org/audit']);
      assertRefused((env) => loadCheckpointKeyConfig(env, CWD), { AUDIT_LOG_ORIGIN: 'my log' }, 'AUDIT_LOG_ORIGIN');
    });
  });
});
