import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSigner } from 'fast-jwt';
import { type JwksServer, signHs256, startJwksServer, toJwk, tokenServiceFor } from './support/tokens';
import { describeEachDatabase, type TestEngine } from './support/databases';
import { expectErrorBody, listFleet } from './support/http';
import { runScript, SCRIPTS } from './support/processes';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app';

const ISSUER = 'command-authority';
const AUDIENCE = 'fleet-registry';
const NEXT_SECRET = 'next-secret-that-is-at-least-32-characters-long';

const now = () => Math.floor(Date.now() / 1000);
const validClaims = () => ({ sub: 'officer-5', clearance: 5, iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 3600 });
const validClaimsWithout = (claim: string) => Object.fromEntries(Object.entries(validClaims()).filter(([name]) => name !== claim));
const publicPem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }) as string;
const privatePem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string;

/** HS256 with the app's secret, any header fields on top of alg. */
const hs256 = (claims: object, header: object = {}) => signHs256(claims, { alg: 'HS256', ...header }, TEST_JWT_SECRET);

function signAsymmetric(privateKey: KeyObject, algorithm: 'RS256' | 'EdDSA', kid: string, claims: object = validClaims()): string {
  return createSigner({ key: privatePem(privateKey), algorithm, kid, noTimestamp: true })(claims);
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwksKey = generateKeyPairSync('ed25519');
const rotatedJwksKey = generateKeyPairSync('ed25519');

/**
 * The JWKS fetch gets the service's default timeout, which a loaded test machine can need; only the
 * tests of a misbehaving JWKS server, which wait out the timeout, shorten it.
 */
async function startTokenApp(engine: TestEngine, jwksUrl: string, jwksTimeout: { JWT_JWKS_TIMEOUT_MS?: string } = {}): Promise<TestApp> {
  return startTestApp({
    engine,
    env: {
      JWT_PUBLIC_KEY: JSON.stringify({ r1: publicPem(rsa.publicKey) }),
      JWT_JWKS_URL: jwksUrl,
      ...jwksTimeout,
      JWT_JWKS_REFRESH_SECONDS: '1',
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
    },
  });
}

/** Lists the fleet with the token and asserts the 401 error body and its one `auth.authenticate` denial on the record. */
async function expectRefused(t: TestApp, token: string, reason: 'TOKEN_INVALID' | 'TOKEN_EXPIRED' = 'TOKEN_INVALID'): Promise<void> {
  const { id: lastId } = await t.db.selectFrom('audit_events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow();

  const res = await listFleet(t, '', `Bearer ${token}`);

  expectErrorBody(res, 401, 'UNAUTHENTICATED');
  assert.equal(res.headers['www-authenticate'], 'Bearer');
  const events = await t.db
    .selectFrom('audit_events')
    .select(['action', 'outcome', 'reason', 'request_id'])
    .where('id', '>', Number(lastId ?? 0))
    .execute();
  assert.deepEqual(events, [{ action: 'auth.authenticate', outcome: 'denied', reason, request_id: res.headers['x-request-id'] }]);
}

async function expectAccepted(t: TestApp, token: string): Promise<void> {
  const res = await listFleet(t, '', `Bearer ${token}`);
  assert.equal(res.status, 200, res.text);
}

describeEachDatabase('tokens (RFC 8725)', (engine) => {
  let jwks: JwksServer;
  let published = [toJwk(jwksKey.publicKey, 'j1')];
  let t: TestApp;

  before(async () => {
    jwks = await startJwksServer('serve', () => published);
    t = await startTokenApp(engine, jwks.url);
  });
  after(async () => {
    await t.close();
    await jwks.close();
  });

  describe('accepts', () => {
    it('HS256 with the secret, RS256 with the PEM key its kid names, EdDSA with the JWKS key its kid names', async () => {
      await expectAccepted(t, hs256(validClaims()));
      await expectAccepted(t, signAsymmetric(rsa.privateKey, 'RS256', 'r1'));
      await expectAccepted(t, signAsymmetric(jwksKey.privateKey, 'EdDSA', 'j1'));
    });

    it('a key published in the JWKS after start-up, once the refresh interval has passed (rotation)', async () => {
      published = [toJwk(jwksKey.publicKey, 'j1'), toJwk(rotatedJwksKey.publicKey, 'j2')];
      await new Promise((resolve) => setTimeout(resolve, 1_100));

      await expectAccepted(t, signAsymmetric(rotatedJwksKey.privateKey, 'EdDSA', 'j2'));
      await expectAccepted(t, signAsymmetric(jwksKey.privateKey, 'EdDSA', 'j1'));
    });

    it('a token from npm run token --private-key <file.pem> --kid r1', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-token-'));
      writeFileSync(join(cwd, 'r1.pem'), privatePem(rsa.privateKey));
      const env = { JWT_PUBLIC_KEY: JSON.stringify({ r1: publicPem(rsa.publicKey) }), JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE };
      const args = ['--sub', 'officer-7', '--clearance', '7', '--ttl', '10m'];

      const issued = await runScript(SCRIPTS.token, [...args, '--private-key', 'r1.pem', '--kid', 'r1'], { cwd, env });
      assert.equal(issued.code, 0, issued.stderr);
      await expectAccepted(t, issued.stdout.trim());

      const withoutKey = await runScript(SCRIPTS.token, args, { cwd, env });
      assert.equal(withoutKey.code, 1);
      assert.match(withoutKey.stderr, /no signing key/);
    });

    it('a token from npm run token --kid <kid>, signed with that JWT_SECRET entry and naming it', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-token-'));
      const env = { JWT_SECRET: JSON.stringify({ '': TEST_JWT_SECRET, next: NEXT_SECRET }), JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE };
      const args = ['--sub', 'officer-7', '--clearance', '7'];

      const issued = await runScript(SCRIPTS.token, [...args, '--kid', 'next'], { cwd, env });
      assert.equal(issued.code, 0, issued.stderr);
      const token = issued.stdout.trim();
      assert.equal(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid, 'next');
      await expectRefused(t, token);
      assert.deepEqual(await tokenServiceFor({ ...env, JWT_SECRET: JSON.stringify({ next: NEXT_SECRET }) }).verify(token), { id: 'officer-7', clearance: 7 });

      const unknown = await runScript(SCRIPTS.token, [...args, '--kid', 'nope'], { cwd, env });
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /names no kid "nope"/);
    });
  });

  describe('refuses with 401 and an auth.authenticate denial on the record', () => {
    it('alg none, and algorithms not configured for the key', async () => {
      await expectRefused(t, hs256(validClaims(), { alg: 'none' }).replace(/[^.]+$/, ''));
      for (const alg of ['HS384', 'HS512', 'RS256', 'ES256']) {
        await expectRefused(t, hs256(validClaims(), { alg }));
      }
      await expectRefused(t, signHs256(validClaims(), { alg: 'HS256', kid: 'r1' }, publicPem(rsa.publicKey)));
    });

    it('a claim changed under the old signature', async () => {
      const [header, , signature] = hs256(validClaims()).split('.');
      const raised = Buffer.from(JSON.stringify({ ...validClaims(), clearance: 10 })).toString('base64url');
      await expectRefused(t, `${header}.${raised}.${signature}`);
    });

    it('a kid naming no configured key, without asking the JWKS server more than once per interval', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const before = jwks.requests();
      for (const kid of ['k9', 'k10', 'k11']) {
        await expectRefused(t, hs256(validClaims(), { kid }));
      }
      assert.equal(jwks.requests() - before, 1);
    });

    for (const name of ['jku', 'jwk', 'x5u', 'x5c']) {
      it(`a correctly signed token with a ${name} header, which is never followed`, async () => {
        const value = { jku: jwks.url, x5u: jwks.url, jwk: toJwk(jwksKey.publicKey, 'j1'), x5c: ['MIIBIjANBgkq'] }[name];
        const before = jwks.requests();
        await expectRefused(t, hs256(validClaims(), { [name]: value }));
        assert.equal(jwks.requests(), before);
      });
    }

    it('an unknown crit header', async () => {
      await expectRefused(t, hs256(validClaims(), { crit: ['urn:example:ttl'], 'urn:example:ttl': 5 }));
    });

    it('a wrong or missing iss or aud', async () => {
      const wrong = [{ ...validClaims(), iss: 'rebel-alliance' }, { ...validClaims(), aud: 'cantina' }];
      for (const claims of [...wrong, validClaimsWithout('iss'), validClaimsWithout('aud')]) {
        await expectRefused(t, hs256(claims));
      }
    });

    it('nbf or iat in the future beyond the clock tolerance', async () => {
      await expectRefused(t, hs256({ ...validClaims(), nbf: now() + 120 }));
      await expectRefused(t, hs256({ ...validClaims(), iat: now() + 120 }));
    });

    it('exp past the clock tolerance (TOKEN_EXPIRED), missing, or further ahead than the maximum lifetime', async () => {
      await expectRefused(t, hs256({ ...validClaims(), exp: now() - 120 }), 'TOKEN_EXPIRED');
      await expectRefused(t, hs256(validClaimsWithout('exp')));
      await expectRefused(t, hs256({ ...validClaims(), exp: now() + 86_400 + 120 }));
      await expectRefused(t, hs256({ ...validClaims(), exp: now() + 1e9 * 365 * 86_400 }));
    });

    it('a clearance that is a string, float, null, array, object, negative, above 10 or missing', async () => {
      for (const clearance of ['7', 7.5, null, [7], { level: 7 }, -1, 11, undefined]) {
        await expectRefused(t, hs256({ ...validClaims(), clearance }));
      }
    });
  });

  describe('a JWKS server that misbehaves', () => {
    for (const behaviour of ['hang', 'garbage'] as const) {
      it(`answers 401 within the fetch timeout when it ${behaviour === 'hang' ? 'hangs' : 'answers garbage'}, and still serves other keys`, async () => {
        const broken = await startJwksServer(behaviour);
        const app = await startTokenApp(engine, broken.url, { JWT_JWKS_TIMEOUT_MS: '500' });
        try {
          const token = signAsymmetric(jwksKey.privateKey, 'EdDSA', 'j1');
          const started = Date.now();
          const answers = await Promise.all(Array.from({ length: 5 }, () => listFleet(app, '', `Bearer ${token}`)));
          const waited = Date.now() - started;

          answers.forEach((res) => expectErrorBody(res, 401, 'UNAUTHENTICATED'));
          assert.ok(waited < 3_000, `five concurrent requests took ${waited} ms`);
          const denials = await app.db.selectFrom('audit_events').select('reason').where('action', '=', 'auth.authenticate').execute();
          assert.deepEqual(denials, Array(5).fill({ reason: 'TOKEN_INVALID' }));
          await expectRefused(app, token);
          await expectAccepted(app, hs256(validClaims()));
          await expectAccepted(app, signAsymmetric(rsa.privateKey, 'RS256', 'r1'));
          assert.equal(broken.requests(), 1);
        } finally {
          await app.close();
          await broken.close();
        }
      });
    }
  });
});

describe('token key configuration at start-up', () => {
  it('stops the server with exit code 1 and one line naming JWT_PUBLIC_KEY when the key file cannot be read', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-keys-'));
    const env = { JWT_PUBLIC_KEY: JSON.stringify({ k1: 'missing.pem' }), DATABASE_URL: 'sqlite::memory:' };

    const result = await runScript(SCRIPTS.server, [], { cwd, env });

    assert.equal(result.code, 1);
    assert.match(result.stderr, /^Invalid configuration: JWT_PUBLIC_KEY "k1": ENOENT/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });
});
