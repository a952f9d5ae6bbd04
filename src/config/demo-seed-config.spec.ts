import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { auditSigningKeyFile } from '../../test/support/key-files';
import { loadAppConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);
const SECRET = 's'.repeat(32);
const AUDIT_SIGNING_KEY_FILE = auditSigningKeyFile();

describe('loadAppConfig: the demo seed', () => {
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

  it('never seeds demo data in production unless SEED_DEMO=true', () => {
    assert.equal(load({ NODE_ENV: 'production', JWT_SECRET: SECRET, AUDIT_SIGNING_KEY_FILE }).seedDemo, false);
    assert.equal(load({ NODE_ENV: 'production', JWT_SECRET: SECRET, AUDIT_SIGNING_KEY_FILE, SEED_DEMO: 'true' }).seedDemo, true);
    assert.equal(load({ NODE_ENV: 'development' }).seedDemo, true);
  });
});
