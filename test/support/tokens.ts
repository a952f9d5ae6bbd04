import { createHmac, type JsonWebKey, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { TokenService } from '../../src/auth';
import { loadAppConfig } from '../../src/config';

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

export interface JwksServer {
  url: string;
  /** GET requests received so far. */
  requests: () => number;
  close: () => Promise<void>;
}

/**
 * A real HTTP server on loopback: `serve` answers the JWKS that `keys()` gives at the time of the
 * request (503 when it gives none), with `cacheControl` as its Cache-Control header when set; `hang`
 * never answers, `garbage` answers 200 with a body that is not JSON. On `port` when given: a server
 * started again where a closed one was.
 */
export async function startJwksServer(
  behaviour: 'serve' | 'hang' | 'garbage',
  keys: () => JsonWebKey[] | undefined = () => [],
  cacheControl?: string,
  port = 0,
): Promise<JwksServer> {
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    if (behaviour === 'hang') {
      return;
    }
    if (behaviour === 'garbage') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"keys": [ <html>not json');
      return;
    }
    const published = keys();
    response.writeHead(published ? 200 : 503, { 'content-type': 'application/json', ...(cacheControl ? { 'cache-control': cacheControl } : {}) });
    response.end(JSON.stringify({ keys: published ?? [] }));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A public key as a JWKS entry under the given kid. */
export function toJwk(key: KeyObject, kid: string): JsonWebKey {
  return { ...key.export({ format: 'jwk' }), kid, use: 'sig' };
}
