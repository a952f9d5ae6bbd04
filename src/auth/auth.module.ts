import { Module } from '@nestjs/common';
import { AUDIT_CONFIG, type AuditConfig } from '../config';
import { OPEN_ROUTE_SWITCHES, type RouteSwitch } from './auth.decorators';
import { AuthenticationGuard } from './authentication.guard';
import { ClearanceGuard } from './clearance.guard';
import { TokenModule } from './token.module';

/** Provides the token and clearance guards; the app registers them as global guards, in its GLOBAL_GUARDS order. */
@Module({
  imports: [TokenModule],
  providers: [
    AuthenticationGuard,
    ClearanceGuard,
    {
      provide: OPEN_ROUTE_SWITCHES,
      useFactory: (audit: AuditConfig): ReadonlySet<RouteSwitch> => new Set<RouteSwitch>(audit.tilesPublic ? ['AUDIT_TILES_PUBLIC'] : []),
      inject: [AUDIT_CONFIG],
    },
  ],
  exports: [AuthenticationGuard, ClearanceGuard],
})
export class AuthModule {}
