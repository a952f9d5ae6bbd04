import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSigner } from 'fast-jwt';
import { logLines, type RunningServer, startServer } from './support/processes';
import { type JwksServer, startJwksServer, toJwk } from './support/tokens';
import { waitFor } from './support/wait';

const signingKey = generateKeyPairSync('ed25519');
const STALE = "The identity provider's key set (JWKS) cannot be refreshed: the last good one is used for up to JWT_JWKS_STALE_SECONDS past its age";
const UNAVAILABLE = "The identity provider's key set (JWKS) cannot be fetched and the last good one is too old: no key of it is trusted";

interface Readiness {
  status: number;
  body: { status: string; message?: string; warnings?: string[] };
}

describe('readiness while the JWKS provider goes away and comes back', () => {
  let cwd: string;
  let jwks: JwksServer;
  let server: RunningServer | undefined;
  const published = [toJwk(signingKey.publicKey, 'j1')];
  const token = () =>
    createSigner({ key: signingKey.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'EdDSA', kid: 'j1', expiresIn: 3_600_000 })({
      sub: 'officer-5',
      clearance: 5,
    });
  const ready = async (): Promise<Readiness> => {
    const res = await fetch(`${server!.url}/health/ready`);
    return { status: res.status, body: (await res.json()) as Readiness['body'] };
  };
  const listingStatus = async () => (await fetch(`${server!.url}/v1/fleet/star-destroyers`, { headers: { Authorization: `Bearer ${token()}` } })).status;
  /** Polls readiness until `matches` holds, and returns how long that took. */
  const readinessAfter = async (matches: (readiness: Readiness) => boolean): Promise<number> => {
    const started = Date.now();
    await waitFor(async () => (matches(await ready()) ? true : undefined));
    return Date.now() - started;
  };

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-jwks-'));
    jwks = await startJwksServer('serve', () => published, 'max-age=1');
    server = await startServer({
      cwd,
      env: {
        DATABASE_URL: `sqlite:${join(cwd, 'registry.sqlite')}`,
        JWT_JWKS_URL: jwks.url,
        JWT_JWKS_MIN_AGE_SECONDS: '1',
        JWT_JWKS_MAX_AGE_SECONDS: '1',
        JWT_JWKS_STALE_SECONDS: '3',
        JWT_JWKS_TIMEOUT_MS: '500',
        RATE_LIMIT_ENABLED: 'false',
      },
    });
  });
  after(async () => {
    await server?.stop();
    await jwks.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('is ready without warnings while the JWKS is fetched, ready with a warning while the last good set serves, unready past the staleness bound, and ready again when the provider returns', async () => {
    assert.deepEqual(await ready(), { status: 200, body: { status: 'success' } });
    assert.equal(await listingStatus(), 200);
    const port = new URL(jwks.url).port;

    await jwks.close();
    const warnedAfter = await readinessAfter(({ status, body }) => status === 200 && body.warnings !== undefined);
    assert.deepEqual(await ready(), { status: 200, body: { status: 'success', warnings: [STALE] } });
    assert.equal(await listingStatus(), 200, 'the last good set still serves');

    const unreadyAfter = warnedAfter + (await readinessAfter(({ status }) => status === 503));
    assert.deepEqual(await ready(), { status: 503, body: { status: 'error', message: UNAVAILABLE, error_code: 'SERVICE_UNAVAILABLE' } });
    assert.equal(await listingStatus(), 401, 'past the staleness bound no key of the JWKS is trusted');

    jwks = await startJwksServer('serve', () => published, 'max-age=1', Number(port));
    const backAfter = await readinessAfter(({ status, body }) => status === 200 && body.warnings === undefined);
    assert.equal(await listingStatus(), 200);
    console.log(`# JWKS provider stopped: readiness warned after ${warnedAfter} ms, 503 after ${unreadyAfter} ms (max-age 1 s + stale 3 s); provider back: ready after ${backAfter} ms`);
    assert.ok(unreadyAfter >= 2_000 && unreadyAfter <= 6_000, `${unreadyAfter} ms`);

    const lines = logLines(server!).filter((line) => line.context === 'JwksKeySet');
    assert.deepEqual(
      lines.map(({ level }) => level),
      ['warn', 'error', 'info'],
      JSON.stringify(lines),
    );
    assert.match(lines[0].msg, /^JWKS not refreshed from http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json: fetch failed \(.*ECONNREFUSED.*\); the last good set is used until /);
  });
});
