import { Module } from '@nestjs/common';
import { AuthenticationGuard } from './authentication.guard';
import { ClearanceGuard } from './clearance.guard';
import { TokenModule } from './token.module';

/** Provides the token and clearance guards; the app registers them as global guards, in its GLOBAL_GUARDS order. */
@Module({
  imports: [TokenModule],
  providers: [AuthenticationGuard, ClearanceGuard],
  exports: [AuthenticationGuard, ClearanceGuard],
})
export class AuthModule {}
