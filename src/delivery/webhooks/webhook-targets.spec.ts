import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { ShownAuditEvent } from '../../audit';
import type { DatabaseConfig, DeliveryConfig } from '../../config';
import { createDatabase, type DB, migrateToLatest } from '../../database';
import { SecretBox } from './secret-box';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import { matchesFilter, WebhookTargets } from './webhook-targets';

const EVENT = { id: 7, action: 'asset.decommission', outcome: 'allowed', asset_id: 'TIE-0001' } as ShownAuditEvent;

describe('matchesFilter', () => {
  it('takes every event with an empty filter, and narrows by each field given', () => {
    assert.equal(matchesFilter({}, EVENT), true);
    assert.equal(matchesFilter({ actions: ['asset.read', 'asset.decommission'] }, EVENT), true);
    assert.equal(matchesFilter({ actions: ['asset.read'] }, EVENT), false);
    assert.equal(matchesFilter({ outcomes: ['denied'] }, EVENT), false);
    assert.equal(matchesFilter({ outcomes: ['allowed'], asset_id: 'TIE-0001' }, EVENT), true);
    assert.equal(matchesFilter({ asset_id: 'TIE-0002' }, EVENT), false);
    assert.equal(matchesFilter({ asset_id: 'TIE-0001' }, { ...EVENT, asset_id: null }), false);
  });
});

describe('WebhookTargets', () => {
  let db: Kysely<DB>;
  let targets: WebhookTargets;
  let repository: WebhookSubscriptionsRepository;
  const secretBox = new SecretBox({ secretKey: randomBytes(32), generatesSecretKey: false } as DeliveryConfig, {} as DatabaseConfig);

  before(async () => {
    db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
    await migrateToLatest(db);
    repository = new WebhookSubscriptionsRepository(db);
    targets = new WebhookTargets(repository, secretBox);
    await repository.insert(db, {
      id: 'b3c1d2e4-0000-4000-8000-000000000001',
      url: 'https://hooks.example.com/in',
      description: null,
      filter: JSON.stringify({ outcomes: ['denied'] }),
      secret: secretBox.seal('whsec_Y3VycmVudA=='),
      cursor: 0,
      created_by: 'officer-9',
    });
  });
  after(() => db.destroy());

  it('reads a subscription decrypted, its current secret only, and undefined for an unknown one', async () => {
    assert.deepEqual(await targets.find('b3c1d2e4-0000-4000-8000-000000000001'), {
      url: 'https://hooks.example.com/in',
      filter: { outcomes: ['denied'] },
      secrets: ['whsec_Y3VycmVudA=='],
    });
    assert.equal(await targets.find('b3c1d2e4-0000-4000-8000-000000000002'), undefined);
  });

  it('adds the replaced secret while it still signs, and drops it after', async () => {
    const id = 'b3c1d2e4-0000-4000-8000-000000000001';
    await repository.rotateSecret(db, id, secretBox.seal('whsec_bmV3'), new Date(Date.now() + 60_000).toISOString());
    assert.deepEqual((await targets.find(id))?.secrets, ['whsec_bmV3', 'whsec_Y3VycmVudA==']);
    await db.updateTable('webhook_subscriptions').set({ previous_secret_until: new Date(Date.now() - 1).toISOString() }).execute();
    assert.deepEqual((await targets.find(id))?.secrets, ['whsec_bmV3']);
  });
});
