import 'reflect-metadata';
import { createSecretKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { createVerifier } from 'fast-jwt';
import { jwtVerify, SignJWT } from 'jose';
import { tokenServiceFor } from '../src/auth/token.testing';

const SECRET = 'bench-secret-that-is-at-least-32-characters';
const ITERATIONS = 20_000;

async function measure(label: string, verify: () => unknown): Promise<void> {
  for (let i = 0; i < 1_000; i++) await verify();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) await verify();
  const micros = Number(process.hrtime.bigint() - start) / 1_000 / ITERATIONS;
  console.log(`${label.padEnd(52)} ${micros.toFixed(1).padStart(7)} µs/verify  ${Math.round(1e6 / micros).toLocaleString('en').padStart(9)} verifies/s`);
}

interface Algorithm {
  alg: 'HS256' | 'RS256' | 'EdDSA';
  signingKey: KeyObject;
  verifyingKey: KeyObject;
}

function algorithms(): Algorithm[] {
  const secret = createSecretKey(Buffer.from(SECRET));
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ed25519 = generateKeyPairSync('ed25519');
  return [
    { alg: 'HS256', signingKey: secret, verifyingKey: secret },
    { alg: 'RS256', signingKey: rsa.privateKey, verifyingKey: rsa.publicKey },
    { alg: 'EdDSA', signingKey: ed25519.privateKey, verifyingKey: ed25519.publicKey },
  ];
}

/** The three libraries on the same tokens; the loop awaits each verify, so the sync ones pay a microtask too. */
async function compareLibraries({ alg, signingKey, verifyingKey }: Algorithm): Promise<void> {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const token = await new SignJWT({ sub: 'officer-7', clearance: 7, exp }).setProtectedHeader({ alg }).sign(signingKey);
  // jsonwebtoken 9, under @nestjs/jwt, has no EdDSA.
  if (alg !== 'EdDSA') {
    const nest = new JwtService({ secret: verifyingKey, publicKey: verifyingKey, verifyOptions: { algorithms: [alg] } });
    await measure(`${alg}  @nestjs/jwt (KeyObject)`, () => nest.verify(token));
  }
  await measure(`${alg}  jose jwtVerify`, () => jwtVerify(token, verifyingKey, { algorithms: [alg], requiredClaims: ['exp'] }));
  const pem = alg === 'HS256' ? SECRET : verifyingKey.export({ type: 'spki', format: 'pem' });
  const fast = createVerifier({ key: pem, algorithms: [alg], requiredClaims: ['exp'] });
  await measure(`${alg}  fast-jwt createVerifier (no cache)`, () => fast(token));
}

async function main(): Promise<void> {
  console.log(`JWT verification, ${ITERATIONS} iterations each, Node ${process.version}`);
  for (const algorithm of algorithms()) {
    await compareLibraries(algorithm);
  }
  const sut = tokenServiceFor();
  const token = sut.issue('officer-7', 7, '1h');
  await measure('HS256  TokenService.verify (jose and every rule)', () => sut.verify(token));
}

void main();
