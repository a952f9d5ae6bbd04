import { createSecretKey } from 'node:crypto';
import { Module } from '@nestjs/common';
import { JwtModule, type JwtModuleOptions } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '../config';
import { resolveJwtSecret } from './jwt-secret';
import { TokenService } from './token.service';

export const JWT_ALGORITHM = 'HS256';

/** How tokens are signed and checked: HS256 only, with issuer and audience when configured. */
export function jwtOptions(secret: string, expected: { issuer?: string; audience?: string } = {}): JwtModuleOptions {
  // jsonwebtoken refuses an issuer or audience key whose value is undefined: name only those configured.
  const claims = {
    ...(expected.issuer && { issuer: expected.issuer }),
    ...(expected.audience && { audience: expected.audience }),
  };
  return {
    // A KeyObject spares jsonwebtoken from importing a string secret on every verify (~1 ms each).
    secret: createSecretKey(Buffer.from(secret, 'utf8')),
    signOptions: { algorithm: JWT_ALGORITHM, ...claims },
    verifyOptions: { algorithms: [JWT_ALGORITHM], ...claims },
  };
}

/** Issues and verifies tokens; needs nothing but the configuration, so the token command can use it alone. */
@Module({
  imports: [
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => jwtOptions(resolveJwtSecret(config), config.jwt),
    }),
  ],
  providers: [TokenService],
  exports: [TokenService],
})
export class TokenModule {}
