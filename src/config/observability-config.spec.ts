import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig: logs and metrics', () => {
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
});
