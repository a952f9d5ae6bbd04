import { Module } from '@nestjs/common';
import { TOKEN_CONFIG, type TokenConfig } from '../config';
import { TokenService } from './token.service';

/** Issues and verifies tokens; needs nothing but the configuration, so the token command can use it alone. */
@Module({
  providers: [{ provide: TokenService, inject: [TOKEN_CONFIG], useFactory: (config: TokenConfig) => TokenService.fromConfig(config) }],
  exports: [TokenService],
})
export class TokenModule {}
