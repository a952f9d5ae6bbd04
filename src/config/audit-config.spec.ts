import 'reflect-metadata';
import assert from 'node:assert/strict';
import { chownSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { auditSigningKeyFile } from '../../test/support/key-files';
import { loadAppConfig, loadCheckpointKeyConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);
const SECRET = 's'.repeat(32);
const AUDIT_KEY = auditSigningKeyFile();
const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: SECRET };

describe('loadAppConfig: the audit trail', () => {
  describe('audit sequencing', () => {
    it('batches up to 500 events, looks again after 5 ms, takes over within 500 ms, waits 10 s and is unready past 2 s by default', () => {
      assert.deepEqual(load({}).audit, {
        signingKey: undefined,
        signingKeyWarning: undefined,
        logOrigin: 'fleet-registry.invalid/audit',
        checkpointIntervalMs: 1_000,
        batchLimit: 500,
        sequencerIntervalMs: 1_000,
        takeoverIntervalMs: 500,
        sequencingTimeoutMs: 10_000,
        readinessLagMs: 2_000,
        verificationsMax: 2,
        tilesPublic: false,
      });
      const sut = load({
        AUDIT_BATCH_LIMIT: '100',
        AUDIT_SEQUENCER_INTERVAL_MS: '20',
        AUDIT_TAKEOVER_INTERVAL_MS: '1000',
        AUDIT_SEQUENCING_TIMEOUT_MS: '3000',
        AUDIT_READINESS_LAG_MS: '500',
        AUDIT_VERIFICATIONS_MAX: '4',
        AUDIT_TILES_PUBLIC: 'true',
      });
      assert.deepEqual(sut.audit, {
        signingKey: undefined,
        signingKeyWarning: undefined,
        logOrigin: 'fleet-registry.invalid/audit',
        checkpointIntervalMs: 1_000,
        batchLimit: 100,
        sequencerIntervalMs: 20,
        takeoverIntervalMs: 1_000,
        sequencingTimeoutMs: 3_000,
        readinessLagMs: 500,
        verificationsMax: 4,
        tilesPublic: true,
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

    it('refuses in production a signing key file others than its owner may read or write, naming the file, its mode and the fix', () => {
      for (const mode of [0o644, 0o604, 0o602, 0o620, 0o660, 0o666]) {
        const file = auditSigningKeyFile(mode);
        const shown = `0${mode.toString(8)}`;
        refuses({ ...PRODUCTION, AUDIT_SIGNING_KEY_FILE: file }, `AUDIT_SIGNING_KEY_FILE ${file} has mode ${shown}`, `chmod 600 ${file}`);
        assertRefused((env) => loadCheckpointKeyConfig(env, CWD), { NODE_ENV: 'production', AUDIT_SIGNING_KEY_FILE: file }, `has mode ${shown}`);
      }
    });

    it('accepts in production a key its owner alone may read, or its group too when root owns it (as a secret volume mounts it)', () => {
      for (const mode of [0o600, 0o400]) {
        const sut = load({ ...PRODUCTION, AUDIT_SIGNING_KEY_FILE: auditSigningKeyFile(mode) }).audit;
        assert.deepEqual([sut.signingKey?.asymmetricKeyType, sut.signingKeyWarning], ['ed25519', undefined]);
      }
      const groupReadable = auditSigningKeyFile(0o640);
      if (process.getuid?.() === 0) {
        assert.equal(load({ ...PRODUCTION, AUDIT_SIGNING_KEY_FILE: groupReadable }).audit.signingKey?.asymmetricKeyType, 'ed25519');
        chownSync(groupReadable, 1000, 1000);
      }
      refuses({ ...PRODUCTION, AUDIT_SIGNING_KEY_FILE: groupReadable }, `has mode 0640`, `chmod 600 ${groupReadable}`);
    });

    it('outside production, reads a key others may read, with a warning that names the file, its mode and the fix', () => {
      const file = auditSigningKeyFile(0o644);
      for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'test' }]) {
        const sut = load({ ...env, AUDIT_SIGNING_KEY_FILE: file }).audit;
        assert.equal(sut.signingKey?.asymmetricKeyType, 'ed25519');
        assert.equal(
          sut.signingKeyWarning,
          `AUDIT_SIGNING_KEY_FILE ${file} has mode 0644: others than its owner may read or change this private key, which NODE_ENV=production refuses. Run chmod 600 ${file}`,
        );
        assert.equal(loadCheckpointKeyConfig({ ...env, AUDIT_SIGNING_KEY_FILE: file }, CWD).signingKeyWarning, sut.signingKeyWarning);
      }
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
        ['AUDIT_TILES_PUBLIC', ['yes', '1', 'TRUE']],
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
      assert.deepEqual(loadCheckpointKeyConfig(others, CWD), { signingKey: undefined, signingKeyWarning: undefined, logOrigin: 'fleet-registry.invalid/audit' });
      const sut = loadCheckpointKeyConfig({ ...others, AUDIT_SIGNING_KEY_FILE: AUDIT_KEY, AUDIT_LOG_ORIGIN: 'registry.example.org/audit' }, CWD);
      assert.deepEqual([sut.signingKey?.asymmetricKeyType, sut.logOrigin], ['ed25519', 'registry.example.org/audit']);
      assertRefused((env) => loadCheckpointKeyConfig(env, CWD), { AUDIT_LOG_ORIGIN: 'my log' }, 'AUDIT_LOG_ORIGIN');
    });
  });
});
