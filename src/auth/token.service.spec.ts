import 'reflect-metadata';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createSigner } from 'fast-jwt';
import { ConfigurationError } from '../config';
import { privateTokenKey } from '../config';
import { TokenRejectedError, type TokenService } from './token.service';
import { signHs256, TEST_SECRET, tokenServiceFor } from '../../test/support/tokens';

const nowInSeconds = () => Math.floor(Date.now() / 1000);
const validClaims = () => ({ sub: 'officer-7', clearance: 7, exp: nowInSeconds() + 3600 });
const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }) as string;
/** The header and payload of a token. */
const decode = (token: string) => token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));

async function rejects(sut: TokenService, token: string, reason: TokenRejectedError['reason'], detail?: RegExp): Promise<void> {
  await assert.rejects(sut.verify(token), (error: unknown) => {
    assert.ok(error instanceof TokenRejectedError, `expected a TokenRejectedError, got ${String(error)}`);
    assert.equal(error.reason, reason);
    if (detail) {
      assert.match(error.detail, detail);
    }
    return true;
  });
}

describe('TokenService', () => {
  const sut = tokenServiceFor();

  describe('issue and verify', () => {
    it('round-trips an officer id and clearance', async () => {
      assert.deepEqual(await sut.verify(sut.issue('officer-7', 7, '15m')), { id: 'officer-7', clearance: 7 });
    });

    it('signs with HS256, no kid, and sets exp from the ttl', () => {
      const [header, payload] = decode(sut.issue('officer-7', 7, '15m'));

      assert.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
      assert.equal(payload.sub, 'officer-7');
      assert.equal(payload.clearance, 7);
      assert.equal(payload.exp - payload.iat, 15 * 60);
    });

    it('accepts the clearance bounds 0 and 10', async () => {
      assert.deepEqual(await sut.verify(sut.issue('cadet', 0, '1h')), { id: 'cadet', clearance: 0 });
      assert.deepEqual(await sut.verify(sut.issue('grand-moff', 10, '1d')), { id: 'grand-moff', clearance: 10 });
    });

    it('accepts hand-signed claims of the right shape, with or without iat and nbf', async () => {
      assert.deepEqual(await sut.verify(signHs256(validClaims())), { id: 'officer-7', clearance: 7 });
      const now = nowInSeconds();
      assert.deepEqual(await sut.verify(signHs256({ ...validClaims(), iat: now, nbf: now })), { id: 'officer-7', clearance: 7 });
    });

    it('signs in the configured issuer and audience', async () => {
      const scoped = tokenServiceFor({ JWT_ISSUER: 'command', JWT_AUDIENCE: 'registry' });
      const [, payload] = decode(scoped.issue('officer-7', 7, '1h'));

      assert.equal(payload.iss, 'command');
      assert.equal(payload.aud, 'registry');
    });
  });

  describe('verify refuses as TOKEN_INVALID', () => {
    it('a token signed with another secret', async () => {
      await rejects(sut, signHs256(validClaims(), undefined, 'another-secret-that-is-also-32-characters-long'), 'TOKEN_INVALID');
    });

    it('a claim changed under the old signature', async () => {
      const [header, , signature] = sut.issue('officer-3', 3, '1h').split('.');
      const raised = Buffer.from(JSON.stringify({ ...validClaims(), sub: 'officer-3', clearance: 10 })).toString('base64url');

      await rejects(sut, `${header}.${raised}.${signature}`, 'TOKEN_INVALID');
    });

    it('alg none, and every algorithm but HS256 for a secret', async () => {
      const unsigned = signHs256(validClaims(), { alg: 'none' }).replace(/[^.]+$/, '');
      await rejects(sut, unsigned, 'TOKEN_INVALID');
      for (const alg of ['HS384', 'HS512', 'RS256', 'none', 'hs256']) {
        await rejects(sut, signHs256(validClaims(), { alg }), 'TOKEN_INVALID');
      }
    });

    it('a kid that names no configured key', async () => {
      await rejects(sut, signHs256(validClaims(), { alg: 'HS256', kid: 'k9' }), 'TOKEN_INVALID', /kid names no configured key/);
      await rejects(sut, signHs256(validClaims(), { alg: 'HS256', kid: 7 }), 'TOKEN_INVALID', /kid/);
    });

    for (const name of ['jku', 'jwk', 'x5u', 'x5c']) {
      it(`a ${name} header, correctly signed`, async () => {
        const value = name === 'x5c' ? ['MIIB'] : name === 'jwk' ? { kty: 'oct', k: 'AAAA' } : 'http://127.0.0.1:1/keys';
        await rejects(sut, signHs256(validClaims(), { alg: 'HS256', [name]: value }), 'TOKEN_INVALID', new RegExp(name));
      });
    }

    it('an unknown crit header, correctly signed', async () => {
      await rejects(sut, signHs256(validClaims(), { alg: 'HS256', crit: ['exp-ext'], 'exp-ext': true }), 'TOKEN_INVALID', /crit/i);
      await rejects(sut, signHs256(validClaims(), { alg: 'HS256', crit: [] }), 'TOKEN_INVALID');
    });

    it('a wrong or missing iss and aud when configured', async () => {
      const scoped = tokenServiceFor({ JWT_ISSUER: 'command', JWT_AUDIENCE: 'registry' });
      await scoped.verify(signHs256({ ...validClaims(), iss: 'command', aud: 'registry' }));
      for (const claims of [{ iss: 'rebels', aud: 'registry' }, { iss: 'command', aud: 'cantina' }, { iss: 'command' }, { aud: 'registry' }]) {
        await rejects(scoped, signHs256({ ...validClaims(), ...claims }), 'TOKEN_INVALID');
      }
    });

    it('nbf or iat further in the future than the clock tolerance (30 s by default)', async () => {
      const now = nowInSeconds();
      await sut.verify(signHs256({ ...validClaims(), nbf: now + 20, iat: now + 20 }));
      await rejects(sut, signHs256({ ...validClaims(), nbf: now + 60 }), 'TOKEN_INVALID');
      await rejects(sut, signHs256({ ...validClaims(), iat: now + 60 }), 'TOKEN_INVALID', /iat/);
    });

    it('exp further ahead than the maximum lifetime (24 h by default), or a billion years away', async () => {
      const now = nowInSeconds();
      await sut.verify(signHs256({ ...validClaims(), exp: now + 86_400 }));
      await rejects(sut, signHs256({ ...validClaims(), exp: now + 86_400 + 60 }), 'TOKEN_INVALID', /JWT_MAX_LIFETIME_SECONDS/);
      await rejects(sut, signHs256({ ...validClaims(), exp: now + 1e9 * 365 * 86_400 }), 'TOKEN_INVALID');
    });

    it('a missing exp, or exp, iat or nbf that is not a number', async () => {
      const { sub, clearance } = validClaims();
      await rejects(sut, signHs256({ sub, clearance }), 'TOKEN_INVALID');
      for (const claim of ['exp', 'iat', 'nbf']) {
        await rejects(sut, signHs256({ ...validClaims(), [claim]: String(nowInSeconds()) }), 'TOKEN_INVALID');
      }
    });

    for (const clearance of [-1, 11, 7.5, '7', null, true, [7], { level: 7 }, undefined]) {
      it(`clearance ${JSON.stringify(clearance)}`, async () => {
        await rejects(sut, signHs256({ ...validClaims(), clearance }), 'TOKEN_INVALID');
      });
    }

    for (const sub of ['', '   ', 'o'.repeat(257), 7, null, ['officer-7'], undefined]) {
      it(`sub ${JSON.stringify(sub)}`, async () => {
        await rejects(sut, signHs256({ ...validClaims(), sub }), 'TOKEN_INVALID');
      });
    }

    it('text that is not a JWT, or a payload that is not a JSON object', async () => {
      for (const token of ['not-a-jwt', 'a.b.c', 'e30.e30.', '..']) {
        await rejects(sut, token, 'TOKEN_INVALID');
      }
      for (const payload of ['"officer-7"', 'null', '42', '[]', 'not json']) {
        await rejects(sut, signHs256(payload), 'TOKEN_INVALID');
      }
    });
  });

  describe('verify refuses as TOKEN_EXPIRED', () => {
    it('exp past by more than the clock tolerance, and not exp within it', async () => {
      await sut.verify(signHs256({ ...validClaims(), exp: nowInSeconds() - 10 }));
      await rejects(sut, signHs256({ ...validClaims(), exp: nowInSeconds() - 60 }), 'TOKEN_EXPIRED');
    });

    it('once its exp has passed, even after it was accepted while valid', async (t) => {
      const strict = tokenServiceFor({ JWT_CLOCK_TOLERANCE_SECONDS: '0' });
      const token = signHs256({ ...validClaims(), exp: nowInSeconds() + 60 });
      assert.deepEqual(await strict.verify(token), { id: 'officer-7', clearance: 7 });
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() + 61_000 });
      await rejects(strict, token, 'TOKEN_EXPIRED');
    });

    it('when the clock steps back before its nbf, iat or lifetime cap, even after it was accepted', async (t) => {
      const strict = tokenServiceFor({ JWT_CLOCK_TOLERANCE_SECONDS: '0' });
      const now = nowInSeconds();
      for (const claims of [{ nbf: now }, { iat: now }, { exp: now + 86_400 }]) {
        const token = signHs256({ ...validClaims(), ...claims });
        assert.deepEqual(await strict.verify(token), { id: 'officer-7', clearance: 7 });
        t.mock.timers.enable({ apis: ['Date'], now: Date.now() - 61_000 });
        await rejects(strict, token, 'TOKEN_INVALID');
        t.mock.timers.reset();
        assert.deepEqual(await strict.verify(token), { id: 'officer-7', clearance: 7 }, 'valid again once the clock is back');
      }
    });

    it('with no clock tolerance at all when JWT_CLOCK_TOLERANCE_SECONDS=0', async () => {
      const strict = tokenServiceFor({ JWT_CLOCK_TOLERANCE_SECONDS: '0' });
      await rejects(strict, signHs256({ ...validClaims(), exp: nowInSeconds() - 2 }), 'TOKEN_EXPIRED');
      await rejects(strict, signHs256({ ...validClaims(), iat: nowInSeconds() + 5 }), 'TOKEN_INVALID');
    });
  });

  describe('standing: a token accepted earlier, checked again', () => {
    it('is accepted until exp plus the clock tolerance, then refused as TOKEN_EXPIRED; a token of no configured key as TOKEN_INVALID', async (t) => {
      const exp = nowInSeconds() + 60;
      const token = signHs256({ ...validClaims(), exp });
      assert.deepEqual(await sut.standing(token), { accepted: true, until: (exp + 30) * 1000 });
      t.mock.timers.enable({ apis: ['Date'], now: (exp + 30) * 1000 + 1 });
      assert.deepEqual(await sut.standing(token), { accepted: false, reason: 'TOKEN_EXPIRED' });
      t.mock.timers.reset();
      assert.deepEqual(await sut.standing(signHs256(validClaims(), { alg: 'HS256', typ: 'JWT', kid: 'gone' })), { accepted: false, reason: 'TOKEN_INVALID' });
    });
  });

  describe('keys', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ed = generateKeyPairSync('ed25519');
    const signWith = (privateKey: KeyObject, kid?: string, claims: object = validClaims()) => {
      const key = privateTokenKey(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, kid);
      return createSigner({ key: key.key, algorithm: key.alg, kid, noTimestamp: true })(claims);
    };

    it('verifies RS256, ES256 and EdDSA with the PEM key each kid names, HS256 with the secret', async () => {
      const multi = tokenServiceFor({ JWT_PUBLIC_KEY: JSON.stringify({ r1: pem(rsa.publicKey), e1: pem(ec.publicKey), d1: pem(ed.publicKey) }) });

      for (const [privateKey, kid, alg] of [[rsa.privateKey, 'r1', 'RS256'], [ec.privateKey, 'e1', 'ES256'], [ed.privateKey, 'd1', 'EdDSA']] as const) {
        const token = signWith(privateKey, kid);
        assert.equal(decode(token)[0].alg, alg);
        assert.deepEqual(await multi.verify(token), { id: 'officer-7', clearance: 7 });
      }
      assert.deepEqual(await multi.verify(signHs256(validClaims())), { id: 'officer-7', clearance: 7 });
    });

    it('refuses a token signed by one key under the kid of another, or under no kid', async () => {
      const multi = tokenServiceFor({ JWT_PUBLIC_KEY: JSON.stringify({ r1: pem(rsa.publicKey), d1: pem(ed.publicKey) }) });
      await rejects(multi, signWith(ed.privateKey, 'r1'), 'TOKEN_INVALID');
      await rejects(multi, signWith(ed.privateKey), 'TOKEN_INVALID');
    });

    it('refuses an HS256 token that uses the public key as its secret (algorithm confusion)', async () => {
      const withPem = tokenServiceFor({ JWT_PUBLIC_KEY: JSON.stringify({ r1: pem(rsa.publicKey) }) });
      await rejects(withPem, signHs256(validClaims(), { alg: 'HS256', kid: 'r1' }, pem(rsa.publicKey)), 'TOKEN_INVALID');
    });

    it('keeps several HS256 secrets valid at once, each selected by kid, and signs with the one named', async () => {
      const next = 'next-secret-that-is-at-least-32-characters-long';
      const rotating = tokenServiceFor({ JWT_SECRET: JSON.stringify({ old: TEST_SECRET, new: next }) });

      const token = rotating.issue('officer-7', 7, '1h', rotating.secret('new'));
      assert.equal(decode(token)[0].kid, 'new');
      assert.deepEqual(await rotating.verify(token), { id: 'officer-7', clearance: 7 });
      assert.deepEqual(await rotating.verify(signHs256(validClaims(), { alg: 'HS256', kid: 'old' })), { id: 'officer-7', clearance: 7 });
      await rejects(rotating, signHs256(validClaims(), { alg: 'HS256', kid: 'new' }), 'TOKEN_INVALID');
      await rejects(rotating, signHs256(validClaims()), 'TOKEN_INVALID', /no key without a kid/);
      assert.throws(() => rotating.issue('officer-7', 7, '1h'), /no signing key/);
    });

    it('reads JWT_PUBLIC_KEY from a file when it is not PEM text', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'token-keys-')), 'ed.pem');
      writeFileSync(file, pem(ed.publicKey));

      const fromFile = tokenServiceFor({ JWT_SECRET: JSON.stringify({ hs: TEST_SECRET }), JWT_PUBLIC_KEY: file });

      assert.deepEqual(await fromFile.verify(signWith(ed.privateKey)), { id: 'officer-7', clearance: 7 });
    });

    it('refuses at start-up a private key, an unreadable file, RSA under 2048 bits or a curve other than P-256', () => {
      const weakRsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
      const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;
      const privatePem = ed.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      for (const value of [privatePem, '/nonexistent/key.pem', pem(weakRsa), pem(p384)]) {
        assert.throws(() => tokenServiceFor({ JWT_PUBLIC_KEY: value }), ConfigurationError);
      }
    });
  });

  describe('issue', () => {
    for (const id of ['', '   ']) {
      it(`refuses the blank officer id ${JSON.stringify(id)} with a RangeError`, () => {
        assert.throws(() => sut.issue(id, 7, '1h'), RangeError);
      });
    }

    for (const clearance of [11, -1, 7.5, Number.NaN]) {
      it(`refuses clearance ${clearance} with a RangeError`, () => {
        assert.throws(() => sut.issue('officer-7', clearance, '1h'), RangeError);
      });
    }

    for (const ttl of ['forever', '', '0s', '10', '1w', '-1h', '1.5h', '2d', '86401s']) {
      it(`refuses the ttl ${JSON.stringify(ttl)} with a RangeError`, () => {
        assert.throws(() => sut.issue('officer-7', 7, ttl), RangeError);
      });
    }
  });
});
