import { createHmac } from 'node:crypto';
import { loadAppConfig } from '../config';
import { TokenService } from './token.service';

export const TEST_SECRET = 'unit-test-secret-that-is-at-least-32-characters';

/** A TokenService as TokenModule builds it, from these environment variables on top of an HS256 secret. */
export function tokenServiceFor(env: Record<string, string> = {}): TokenService {
  return TokenService.fromConfig(loadAppConfig({ JWT_SECRET: TEST_SECRET, ...env }, '/nonexistent'));
}

const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A token built by hand: any header, any payload (an object, or raw text), signed HS256. */
export function signHs256(payload: unknown, header: object = { alg: 'HS256', typ: 'JWT' }, secret = TEST_SECRET): string {
  const signingInput = `${base64url(header)}.${base64url(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}
