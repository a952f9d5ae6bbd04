import 'reflect-metadata';
import { JwtService } from '@nestjs/jwt';
import { jwtOptions } from '../src/auth/token.module';
import { TokenService } from '../src/auth/token.service';

const SECRET = 'bench-secret-that-is-at-least-32-characters';
const ITERATIONS = 20_000;

function measure(label: string, verify: () => unknown): void {
  for (let i = 0; i < 1_000; i++) verify();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) verify();
  const micros = Number(process.hrtime.bigint() - start) / 1_000 / ITERATIONS;
  console.log(`${label.padEnd(44)} ${micros.toFixed(1).padStart(7)} µs/verify  ${Math.round(1e6 / micros).toLocaleString('en').padStart(9)} verifies/s`);
}

const withKeyObject = new TokenService(new JwtService(jwtOptions(SECRET)));
const withString = new TokenService(new JwtService({ ...jwtOptions(SECRET), secret: SECRET }));
const token = withKeyObject.issue('officer-7', 7, '1h');

console.log(`TokenService.verify, ${ITERATIONS} iterations, Node ${process.version}`);
measure('string secret (what a plain config gives)', () => withString.verify(token));
measure('KeyObject secret (what TokenModule uses)', () => withKeyObject.verify(token));
