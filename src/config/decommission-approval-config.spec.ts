import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig: decommission approval', () => {
  describe('DECOMMISSION_APPROVAL', () => {
    it('requires approval with DECOMMISSION_APPROVAL=required, for DECOMMISSION_APPROVAL_TTL', () => {
      assert.deepEqual(load({ DECOMMISSION_APPROVAL: 'required', DECOMMISSION_APPROVAL_TTL: '60m' }).decommissionApproval, {
        policy: 'required',
        ttlSeconds: 3_600,
        requestsPerOfficer: 5,
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

  describe('DECOMMISSION_REQUESTS_PER_OFFICER', () => {
    it('bounds the pending requests of one officer, 5 unless set', () => {
      assert.equal(load({ DECOMMISSION_REQUESTS_PER_OFFICER: '12' }).decommissionApproval.requestsPerOfficer, 12);
    });

    it('refuses zero, a fraction, a word and more than 1000', () => {
      for (const limit of ['0', '1.5', 'many', '1001']) {
        refuses({ DECOMMISSION_REQUESTS_PER_OFFICER: limit }, 'DECOMMISSION_REQUESTS_PER_OFFICER');
      }
    });
  });
});
