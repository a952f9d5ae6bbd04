import { chmodSync, copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The checked-in Ed25519 key (test/fixtures/audit-signing-key.pem) copied into a file of its own with
 * `mode`: git checks every file out readable by all, which production refuses for a private key.
 */
export function auditSigningKeyFile(mode = 0o600): string {
  const file = join(mkdtempSync(join(tmpdir(), 'fleet-registry-key-')), 'audit-signing-key.pem');
  copyFileSync(resolve('test/fixtures/audit-signing-key.pem'), file);
  chmodSync(file, mode);
  return file;
}
