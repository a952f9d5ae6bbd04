import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { DATABASE_CONFIG, type DatabaseConfig, DELIVERY_CONFIG, type DeliveryConfig } from '../../config';

/** The sealed form's version: a later key derivation or cipher gets another. */
const SEALED_PREFIX = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** HKDF's info: the key file's bytes could one day key something else; this key is for webhook secrets only. */
const KEY_PURPOSE = 'fleet-registry webhook secrets v1';

/**
 * Outside production without WEBHOOK_SECRET_KEY_FILE: a key kept beside the SQLite file, or in the data
 * directory for PostgreSQL, generated on first use ('wx': of two processes starting together, the first
 * one's key is kept and the other reads it), so every process on that database opens the same secrets.
 * An in-memory database gets a key as short-lived as itself.
 */
function keyBesideDatabase({ database, dataDir }: DatabaseConfig): Buffer {
  if (database.dialect === 'sqlite' && database.path === ':memory:') {
    return randomBytes(KEY_BYTES);
  }
  const file = database.dialect === 'sqlite' ? `${database.path}.webhook-secret.key` : join(dataDir, 'webhook-secret.key');
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  return readFileSync(file);
}

/**
 * Encrypts subscriptions' secrets for the database, so that a dump alone does not give them away:
 * AES-256-GCM with a random IV, keyed by HKDF-SHA256 from WEBHOOK_SECRET_KEY_FILE (or the generated key).
 */
@Injectable()
export class SecretBox {
  /** Derived on first use, so a start that never reaches the database writes no key file. */
  private key?: Buffer;

  constructor(
    @Inject(DELIVERY_CONFIG) private readonly config: DeliveryConfig,
    @Inject(DATABASE_CONFIG) private readonly database: DatabaseConfig,
  ) {}

  /** False in production without WEBHOOK_SECRET_KEY_FILE: webhooks are off on this instance. */
  available(): boolean {
    return this.config.secretKey !== undefined || this.config.generatesSecretKey;
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.secretKey(), iv);
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString('base64');
  }

  /** Throws when the sealed text was not sealed with this key (WEBHOOK_SECRET_KEY_FILE changed) or was altered. */
  open(sealed: string): string {
    if (!sealed.startsWith(SEALED_PREFIX)) {
      throw new Error('a sealed webhook secret starts with v1:');
    }
    const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.secretKey(), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a webhook secret cannot be opened with this instance\'s key: was WEBHOOK_SECRET_KEY_FILE changed?');
    }
  }

  private secretKey(): Buffer {
    if (this.key === undefined) {
      const material = this.config.secretKey ?? (this.config.generatesSecretKey ? keyBesideDatabase(this.database) : undefined);
      if (material === undefined) {
        throw new Error('webhook secrets need WEBHOOK_SECRET_KEY_FILE in production');
      }
      this.key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), KEY_PURPOSE, KEY_BYTES));
    }
    return this.key;
  }
}
