import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { DatabaseConfig, DeliveryConfig } from '../../config';
import { SecretBox } from './secret-box';

const dir = mkdtempSync(join(tmpdir(), 'secret-box-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function sqliteAt(path: string): DatabaseConfig {
  return { dataDir: dir, database: { dialect: 'sqlite', path }, migrateOnStart: true };
}

function box(keys: Pick<DeliveryConfig, 'secretKey' | 'generatesSecretKey'>, database = sqliteAt(':memory:')): SecretBox {
  return new SecretBox(keys as DeliveryConfig, database);
}

describe('SecretBox', () => {
  const key = randomBytes(32);

  it('seals so that the text is not in the sealed form, differently each time, and opens it again', () => {
    const secrets = box({ secretKey: key, generatesSecretKey: false });
    const sealed = secrets.seal('whsec_c2VjcmV0');
    assert.match(sealed, /^v1:/);
    assert.ok(!sealed.includes('whsec_') && !sealed.includes('c2VjcmV0'));
    assert.notEqual(secrets.seal('whsec_c2VjcmV0'), sealed);
    assert.equal(secrets.open(sealed), 'whsec_c2VjcmV0');
    assert.equal(box({ secretKey: key, generatesSecretKey: false }).open(sealed), 'whsec_c2VjcmV0');
  });

  it('refuses to open with another key, or what was altered, without saying what it held', () => {
    const sealed = box({ secretKey: key, generatesSecretKey: false }).seal('whsec_c2VjcmV0');
    assert.throws(() => box({ secretKey: randomBytes(32), generatesSecretKey: false }).open(sealed), /cannot be opened with this instance's key/);
    const altered = Buffer.from(sealed.slice(3), 'base64');
    altered[altered.length - 1] ^= 1;
    assert.throws(() => box({ secretKey: key, generatesSecretKey: false }).open(`v1:${altered.toString('base64')}`), /cannot be opened/);
    assert.throws(() => box({ secretKey: key, generatesSecretKey: false }).open('whsec_c2VjcmV0'), /starts with v1:/);
  });

  it('is unavailable in production without a key, and available with one or outside production', () => {
    assert.equal(box({ generatesSecretKey: false }).available(), false);
    assert.throws(() => box({ generatesSecretKey: false }).seal('x'), /WEBHOOK_SECRET_KEY_FILE/);
    assert.equal(box({ secretKey: key, generatesSecretKey: false }).available(), true);
    assert.equal(box({ generatesSecretKey: true }).available(), true);
  });

  it('generates a key beside the SQLite file on first use only, mode 0600, which every process on it shares', () => {
    const database = sqliteAt(join(dir, 'registry.db'));
    const first = box({ generatesSecretKey: true }, database);
    const file = join(dir, 'registry.db.webhook-secret.key');
    assert.throws(() => statSync(file), /ENOENT/);
    const sealed = first.seal('whsec_c2VjcmV0');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file).length, 32);
    assert.equal(box({ generatesSecretKey: true }, database).open(sealed), 'whsec_c2VjcmV0');
  });

  it('keeps the key in the data directory for PostgreSQL', () => {
    const database: DatabaseConfig = { ...sqliteAt(''), dataDir: join(dir, 'data'), database: { dialect: 'postgres', url: 'postgres://x', poolSize: 1, timeouts: {} as never } };
    box({ generatesSecretKey: true }, database).seal('x');
    assert.equal(readFileSync(join(dir, 'data', 'webhook-secret.key')).length, 32);
  });
});
