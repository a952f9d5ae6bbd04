import 'reflect-metadata';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { ConfigurationError } from '../config';
import { createDatabase, type DB, migrateToLatest, TransactionRunner } from '../database';
import { DecommissionPolicy } from './decommission-policy';
import { DecommissionPolicyRepository } from './decommission-policy.repository';

describe('DecommissionPolicy', () => {
  let db: Kysely<DB>;
  const instance = (policy?: 'none' | 'required') => new DecommissionPolicy(new DecommissionPolicyRepository(db), new TransactionRunner(db), { policy, ttlSeconds: 60, requestsPerOfficer: 5 });
  const stored = () => db.selectFrom('decommission_policy').selectAll().execute();

  beforeEach(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
  });
  afterEach(() => db.destroy());

  it('writes nothing for an instance that is not set, and decides under none until one is', async () => {
    await instance().onApplicationBootstrap();
    assert.deepEqual(await stored(), []);
    assert.equal(await instance().required(), false);
  });

  it("writes the first set instance's policy, which every instance then decides under, set or not", async () => {
    await instance('required').onApplicationBootstrap();
    const [row] = await stored();
    assert.equal(row.policy, 'required');
    await instance('required').onApplicationBootstrap();
    await instance().onApplicationBootstrap();
    assert.equal(await instance().required(), true);
    assert.deepEqual(await stored(), [row]);
  });

  it('refuses to start an instance set otherwise, naming its value, the database\'s and the command', async () => {
    await instance('none').onApplicationBootstrap();
    await assert.rejects(instance('required').onApplicationBootstrap(), (error: Error) => {
      assert.ok(error instanceof ConfigurationError);
      assert.match(error.message, /^DECOMMISSION_APPROVAL=required disagrees with the policy in the database \(none\): .* npm run db:decommission-approval -- required$/);
      return true;
    });
    assert.equal((await stored())[0].policy, 'none');
  });

  it('changes the policy for running instances, dating only a real change', async () => {
    const running = instance('none');
    await running.onApplicationBootstrap();
    const policies = new DecommissionPolicyRepository(db);
    assert.equal(await policies.change('required'), 'none');
    assert.equal(await running.required(), true);
    const [changed] = await stored();
    assert.equal(await policies.change('required'), 'required');
    assert.deepEqual(await stored(), [changed]);
  });
});
