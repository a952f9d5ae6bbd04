import { createSecretKey } from 'node:crypto';
import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '../config';
import { resolveJwtSecret } from './jwt-secret';
import { TokenService } from './token.service';

export const JWT_ALGORITHM = 'HS256';

/** Issues and verifies tokens; needs nothing but the configuration, so the token command can use it alone. */
@Module({
  imports: [
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => {
        // jsonwebtoken refuses an issuer or audience key whose value is undefined: name only those configured.
        const claims = {
          ...(config.jwt.issuer && { issuer: config.jwt.issuer }),
          ...(config.jwt.audience && { audience: config.jwt.audience }),
        };
        return {
          // A KeyObject spares jsonwebtoken from importing a string secret on every verify (~0.5 ms each).
          secret: createSecretKey(Buffer.from(resolveJwtSecret(config), 'utf8')),
          signOptions: { algorithm: JWT_ALGORITHM, ...claims },
          verifyOptions: { algorithms: [JWT_ALGORITHM], ...claims },
        };
      },
    }),
  ],
  providers: [TokenService],
  exports: [TokenService],
})
export class TokenModule {}
