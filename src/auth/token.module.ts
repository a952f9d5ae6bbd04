import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config';
import { TokenService } from './token.service';

/** Issues and verifies tokens; needs nothing but the configuration, so the token command can use it alone. */
@Module({
  providers: [{ provide: TokenService, inject: [APP_CONFIG], useFactory: (config: AppConfig) => TokenService.fromConfig(config) }],
  exports: [TokenService],
})
export class TokenModule {}
