import { generateKeyPairSync, type KeyObject, createPrivateKey } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AuditConfig, DatabaseConfig } from '../../config';

/** The key that signs checkpoints, and where it came from, for the start-up log. */
export interface SigningKey {
  key: KeyObject;
  /** Set when the key was generated or read from beside the database, not configured. */
  generatedIn?: string;
}

/**
 * AUDIT_SIGNING_KEY_FILE's key; outside production (which requires it), a key kept beside the SQLite
 * file, or in the data directory for PostgreSQL, generated on first use, so every process on that
 * database signs with the same key. An in-memory database gets a key as short-lived as itself.
 */
export function resolveSigningKey(audit: AuditConfig, { database, dataDir }: DatabaseConfig): SigningKey {
  if (audit.signingKey) {
    return { key: audit.signingKey };
  }
  if (database.dialect === 'sqlite' && database.path === ':memory:') {
    return { key: generateKeyPairSync('ed25519').privateKey, generatedIn: 'memory' };
  }
  const file = database.dialect === 'sqlite' ? `${database.path}.audit-signing-key.pem` : join(dataDir, 'audit-signing-key.pem');
  mkdirSync(dirname(file), { recursive: true });
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  try {
    // 'wx': a process that starts at the same time and wrote first keeps its key, and this one reads it.
    writeFileSync(file, pem, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  return { key: createPrivateKey(readFileSync(file, 'utf8')), generatedIn: file };
}
