import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig, type PostgresLocation, type PostgresTimeouts } from '.';

const URL = 'postgres://fleet@db:5432/registry';

const timeouts = (env: NodeJS.ProcessEnv): PostgresTimeouts =>
  (loadAppConfig({ DATABASE_URL: URL, ...env }, '/srv') as { database: PostgresLocation }).database.timeouts;

const refuses = (env: NodeJS.ProcessEnv, variable: string) => assertRefused(timeouts, env, variable);

describe('PostgreSQL timeouts', () => {
  it('bounds every wait by default: 5 s statements, 6 s answers, 3 s connects, 10 s idle, keepalive after 10 s', () => {
    assert.deepEqual(timeouts({}), { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 });
  });

  it('reads each from its variable, in milliseconds', () => {
    const env = {
      DATABASE_STATEMENT_TIMEOUT_MS: '2000',
      DATABASE_QUERY_TIMEOUT_MS: '2500',
      DATABASE_CONNECT_TIMEOUT_MS: '700',
      DATABASE_IDLE_TIMEOUT_MS: '60000',
      DATABASE_KEEPALIVE_DELAY_MS: '30000',
    };
    assert.deepEqual(timeouts(env), { statementMs: 2_000, queryMs: 2_500, connectMs: 700, idleMs: 60_000, keepAliveDelayMs: 30_000 });
  });

  it('keeps the client waiting one second longer than the server runs a statement unless told otherwise', () => {
    assert.equal(timeouts({ DATABASE_STATEMENT_TIMEOUT_MS: '30000' }).queryMs, 31_000);
  });

  it('refuses a client-side limit that does not exceed the statement timeout, naming both', () => {
    for (const queryMs of ['5000', '4000']) {
      assert.throws(
        () => timeouts({ DATABASE_STATEMENT_TIMEOUT_MS: '5000', DATABASE_QUERY_TIMEOUT_MS: queryMs }),
        /DATABASE_QUERY_TIMEOUT_MS must be greater than DATABASE_STATEMENT_TIMEOUT_MS/,
      );
    }
  });

  for (const [variable, bad] of [
    ['DATABASE_STATEMENT_TIMEOUT_MS', ['0', '99', '600001', 'soon', '1.5']],
    ['DATABASE_QUERY_TIMEOUT_MS', ['0', '600001', '-1']],
    ['DATABASE_CONNECT_TIMEOUT_MS', ['0', '60001', '3s']],
    ['DATABASE_IDLE_TIMEOUT_MS', ['999', '3600001']],
    ['DATABASE_KEEPALIVE_DELAY_MS', ['0', '3600001']],
  ] as const) {
    it(`refuses ${variable} outside its range or not a whole number`, () => {
      for (const value of bad) {
        refuses({ [variable]: value }, variable);
      }
    });
  }
});
