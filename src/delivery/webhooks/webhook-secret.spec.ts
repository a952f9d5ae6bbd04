import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, webhookSecretBytes } from './webhook-secret';

describe('webhook secrets', () => {
  it('are whsec_ and the base64 of 32 random bytes, a new one each time', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(webhookSecretBytes(secret).length, 32);
    assert.notEqual(newWebhookSecret(), secret);
  });

  it('key the HMAC with the bytes a Standard Webhooks receiver decodes', async () => {
    const { createHmac } = await import('node:crypto');
    const secret = newWebhookSecret();
    const [id, timestamp, body] = ['42', String(Math.floor(Date.now() / 1000)), '{"type":"asset.read"}'];
    const signature = createHmac('sha256', webhookSecretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
    const verified = new Webhook(secret).verify(body, { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` });
    assert.deepEqual(verified, { type: 'asset.read' });
  });

  it('refuse a secret without the prefix', () => {
    assert.throws(() => webhookSecretBytes('c2VjcmV0'), /starts with whsec_/);
  });
});
