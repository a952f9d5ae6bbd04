import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JwtService } from '@nestjs/jwt';
import { jwtOptions } from './token.module';
import { TokenRejectedError, TokenService } from './token.service';

const SECRET = 'unit-test-secret-that-is-at-least-32-characters';

/** A JwtService configured as TokenModule configures it. */
function jwtService(secret = SECRET): JwtService {
  return new JwtService(jwtOptions(secret));
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const nowInSeconds = () => Math.floor(Date.now() / 1000);

function rejectedWith(reason: TokenRejectedError['reason']) {
  return (error: unknown) => {
    assert.ok(error instanceof TokenRejectedError, `expected a TokenRejectedError, got ${String(error)}`);
    assert.equal(error.reason, reason);
    return true;
  };
}

describe('TokenService', () => {
  const jwt = jwtService();
  const sut = new TokenService(jwt);
  /** Signs arbitrary claims with the service's own secret and algorithm. */
  const signClaims = (claims: Record<string, unknown>) => jwt.sign(claims);
  const validClaims = () => ({ sub: 'officer-7', clearance: 7, exp: nowInSeconds() + 3600 });

  describe('issue and verify', () => {
    it('round-trips an officer id and clearance', () => {
      const token = sut.issue('officer-7', 7, '15m');

      assert.deepEqual(sut.verify(token), { id: 'officer-7', clearance: 7 });
    });

    it('signs with HS256 and sets exp from the ttl', () => {
      const token = sut.issue('officer-7', 7, '15m');

      const decoded = jwt.decode<{ sub: string; clearance: number; iat: number; exp: number }>(token, { complete: true });
      assert.equal(decoded.header.alg, 'HS256');
      assert.equal(decoded.payload.sub, 'officer-7');
      assert.equal(decoded.payload.clearance, 7);
      assert.equal(decoded.payload.exp - decoded.payload.iat, 15 * 60);
    });

    it('accepts the clearance bounds 0 and 10', () => {
      assert.deepEqual(sut.verify(sut.issue('cadet', 0, '1h')), { id: 'cadet', clearance: 0 });
      assert.deepEqual(sut.verify(sut.issue('grand-moff', 10, '1d')), { id: 'grand-moff', clearance: 10 });
    });

    it('accepts hand-signed claims of the right shape', () => {
      assert.deepEqual(sut.verify(signClaims(validClaims())), { id: 'officer-7', clearance: 7 });
    });
  });

  describe('verify', () => {
    it('rejects a token signed with another secret as TOKEN_INVALID', () => {
      const forged = jwtService('another-secret-that-is-also-32-characters-long').sign(validClaims());

      assert.throws(() => sut.verify(forged), rejectedWith('TOKEN_INVALID'));
    });

    it('rejects a token whose payload was altered after signing as TOKEN_INVALID', () => {
      const [header, , signature] = sut.issue('officer-3', 3, '1h').split('.');
      const raised = base64url({ sub: 'officer-3', clearance: 10, iat: nowInSeconds(), exp: nowInSeconds() + 3600 });

      assert.throws(() => sut.verify(`${header}.${raised}.${signature}`), rejectedWith('TOKEN_INVALID'));
    });

    it('rejects an unsigned token (alg none) as TOKEN_INVALID', () => {
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(validClaims())}.`;

      assert.throws(() => sut.verify(unsigned), rejectedWith('TOKEN_INVALID'));
    });

    it('rejects a token signed with HS512 by the right secret as TOKEN_INVALID', () => {
      const hs512 = jwt.sign(validClaims(), { algorithm: 'HS512' });

      assert.throws(() => sut.verify(hs512), rejectedWith('TOKEN_INVALID'));
    });

    it('rejects a token without exp as TOKEN_INVALID', () => {
      assert.throws(() => sut.verify(signClaims({ sub: 'officer-7', clearance: 7 })), rejectedWith('TOKEN_INVALID'));
    });

    it('rejects an expired token as TOKEN_EXPIRED', () => {
      const expired = signClaims({ ...validClaims(), exp: nowInSeconds() - 60 });

      assert.throws(() => sut.verify(expired), rejectedWith('TOKEN_EXPIRED'));
    });

    for (const clearance of [-1, 11, 7.5, '7', null, true]) {
      it(`rejects clearance ${JSON.stringify(clearance)} as TOKEN_INVALID`, () => {
        assert.throws(() => sut.verify(signClaims({ ...validClaims(), clearance })), rejectedWith('TOKEN_INVALID'));
      });
    }

    it('rejects a token without a clearance claim as TOKEN_INVALID', () => {
      const { sub, exp } = validClaims();

      assert.throws(() => sut.verify(signClaims({ sub, exp })), rejectedWith('TOKEN_INVALID'));
    });

    for (const sub of ['', '   ', 7]) {
      it(`rejects sub ${JSON.stringify(sub)} as TOKEN_INVALID`, () => {
        assert.throws(() => sut.verify(signClaims({ ...validClaims(), sub })), rejectedWith('TOKEN_INVALID'));
      });
    }

    it('rejects a token without sub as TOKEN_INVALID', () => {
      const { clearance, exp } = validClaims();

      assert.throws(() => sut.verify(signClaims({ clearance, exp })), rejectedWith('TOKEN_INVALID'));
    });

    it('rejects text that is not a JWT as TOKEN_INVALID', () => {
      assert.throws(() => sut.verify('not-a-jwt'), rejectedWith('TOKEN_INVALID'));
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

    for (const ttl of ['forever', '', '0s', '10', '1w', '-1h', '1.5h']) {
      it(`refuses the ttl ${JSON.stringify(ttl)} with a RangeError`, () => {
        assert.throws(() => sut.issue('officer-7', 7, ttl), RangeError);
      });
    }
  });
});
