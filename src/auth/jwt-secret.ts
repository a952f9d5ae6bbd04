import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from '../config';

/**
 * JWT_SECRET when set; otherwise a random secret created once under the data directory,
 * so the server and `npm run token` agree without any set-up.
 */
export function resolveJwtSecret(config: AppConfig): string {
  if (config.jwt.secret) {
    return config.jwt.secret;
  }
  const file = join(config.dataDir, 'jwt-secret');
  mkdirSync(config.dataDir, { recursive: true });
  try {
    writeFileSync(file, randomBytes(48).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
