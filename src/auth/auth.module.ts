import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthenticationGuard } from './authentication.guard';
import { ClearanceGuard } from './clearance.guard';
import { TokenModule } from './token.module';

@Module({
  imports: [TokenModule],
  providers: [
    // Registration order is execution order: authenticate, then check clearance.
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: ClearanceGuard },
  ],
})
export class AuthModule {}
