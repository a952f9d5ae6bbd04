import { randomBytes } from 'node:crypto';

/** Standard Webhooks' prefix of a secret, which receivers' libraries strip before decoding it. */
const SECRET_PREFIX = 'whsec_';
/** 256 bits: as long as HMAC-SHA256's output, inside the 24 to 64 bytes the issue allows. */
const SECRET_BYTES = 32;

/** A new subscription's secret: 'whsec_' and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The bytes a delivery's HMAC is keyed with: the secret's base64, decoded. */
export function webhookSecretBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) {
    throw new Error('a webhook secret starts with whsec_');
  }
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}
