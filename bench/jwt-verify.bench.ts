import 'reflect-metadata';
import { createSecretKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';
import { createVerifier } from 'fast-jwt';
import { jwtVerify, SignJWT } from 'jose';
import { tokenServiceFor } from '../test/support/tokens';

const SECRET = 'bench-secret-that-is-at-least-32-characters';
const ROUNDS = 7;
const ITERATIONS = 4_000;

interface Candidate {
  label: string;
  verify: () => unknown;
}

async function microsPerVerify(verify: () => unknown, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await verify();
  return Number(process.hrtime.bigint() - start) / 1_000 / iterations;
}

/**
 * Rounds alternate between the candidates, so a busy neighbour on a shared machine slows them all
 * alike; the minimum is the figure least disturbed by it. The loop awaits each verify, so the
 * synchronous libraries pay a microtask too.
 */
async function compare(candidates: Candidate[]): Promise<void> {
  const samples = candidates.map(() => [] as number[]);
  for (const { verify } of candidates) await microsPerVerify(verify, 500);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, { verify }] of candidates.entries()) {
      samples[index].push(await microsPerVerify(verify, ITERATIONS));
    }
  }
  for (const [index, { label }] of candidates.entries()) {
    const sorted = samples[index].sort((a, b) => a - b);
    const [min, median] = [sorted[0], sorted[Math.floor(sorted.length / 2)]];
    console.log(`${label.padEnd(52)} min ${min.toFixed(1).padStart(6)} µs  median ${median.toFixed(1).padStart(6)} µs per verify`);
  }
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

async function candidatesFor({ alg, signingKey, verifyingKey }: Algorithm): Promise<Candidate[]> {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const token = await new SignJWT({ sub: 'officer-7', clearance: 7, exp }).setProtectedHeader({ alg }).sign(signingKey);
  const candidates: Candidate[] = [];
  // jsonwebtoken 9, under @nestjs/jwt, has no EdDSA.
  if (alg !== 'EdDSA') {
    const nest = new JwtService({ secret: verifyingKey, publicKey: verifyingKey, verifyOptions: { algorithms: [alg] } });
    candidates.push({ label: `${alg}  @nestjs/jwt 12 (KeyObject)`, verify: () => nest.verify(token) });
  }
  candidates.push({ label: `${alg}  jose 6 jwtVerify (KeyObject)`, verify: () => jwtVerify(token, verifyingKey, { algorithms: [alg], requiredClaims: ['exp'] }) });
  const key = alg === 'HS256' ? SECRET : (verifyingKey.export({ type: 'spki', format: 'pem' }) as string);
  const fast = createVerifier({ key, algorithms: [alg], requiredClaims: ['exp'] });
  candidates.push({ label: `${alg}  fast-jwt 6 createVerifier (no cache)`, verify: () => fast(token) as unknown });
  return candidates;
}

async function main(): Promise<void> {
  console.log(`JWT verification: ${ROUNDS} alternating rounds of ${ITERATIONS} verifies, Node ${process.version}`);
  for (const algorithm of algorithms()) {
    await compare(await candidatesFor(algorithm));
  }
  const sut = tokenServiceFor();
  const token = sut.issue('officer-7', 7, '1h');
  await compare([{ label: 'HS256  TokenService.verify (fast-jwt + every rule)', verify: () => sut.verify(token) }]);
}

void main();
