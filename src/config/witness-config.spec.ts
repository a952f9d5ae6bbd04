import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadAppConfig } from './app-config';

const KEY = 'witness.example/w1+c62ca1e2+BEKE1ubzOxIHj7K1a7+gv3ZCq3zXr7ME+unt/BnpOOhH';
const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, '/srv').witnesses;

describe('the witnesses configuration', () => {
  it('reads the witnesses, the quorum and the max age', () => {
    const env = { AUDIT_WITNESSES: JSON.stringify([{ url: 'https://w1.example/witness/', key: KEY }]), AUDIT_WITNESS_QUORUM: '1', AUDIT_WITNESS_MAX_AGE: '90s' };
    assert.deepEqual(load(env), { witnesses: [{ url: 'https://w1.example/witness', key: KEY }], quorum: 1, maxAgeSeconds: 90 });
  });

  it('refuses a quorum above the number of witnesses, a key that is not a cosigner key, a key twice, and a bad duration', () => {
    assert.throws(() => load({ AUDIT_WITNESS_QUORUM: '1' }), /AUDIT_WITNESS_QUORUM \(1\) must not exceed the number of AUDIT_WITNESSES \(0\)/);
    const logKey = KEY.replace('+B', '+A');
    assert.throws(() => load({ AUDIT_WITNESSES: JSON.stringify([{ url: 'https://w1.example', key: logKey }]) }), /AUDIT_WITNESSES must be a JSON array/);
    assert.throws(() => load({ AUDIT_WITNESSES: '{"url": 1}' }), /AUDIT_WITNESSES must be a JSON array/);
    const twice = JSON.stringify([{ url: 'https://w1.example', key: KEY }, { url: 'https://w2.example', key: KEY }]);
    assert.throws(() => load({ AUDIT_WITNESSES: twice }), /names a witness key twice/);
    assert.throws(() => load({ AUDIT_WITNESS_MAX_AGE: '10' }), /AUDIT_WITNESS_MAX_AGE must be a duration/);
  });
});
