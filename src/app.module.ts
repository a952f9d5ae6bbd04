import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AssetsModule } from './assets';
import { AuditModule } from './audit';
import { AuthenticationGuard, AuthModule, ClearanceGuard } from './auth';
import { type AppConfig, ConfigModule } from './config';
import { DatabaseModule } from './database';
import { DeliveryModule } from './delivery';
import { FleetModule } from './fleet';
import { HealthModule } from './health';
import { ApiExceptionFilter, BodyErrorGuard, createValidationPipe, MethodNotAllowedModule } from './http';
import { ImportModule } from './import';
import { ObservabilityModule } from './observability';
import { ForwardedForGuard, RateLimitModule, RequestLimitGuard } from './rate-limit';
import { TracingModule } from './tracing';

/**
 * Every request passes these guards in this order (Nest runs global guards in the order they are
 * registered, and they are registered here, nowhere else): a forged client address is refused before
 * anything counts it; a flood is refused before any token is checked; a bad token before a missing clearance; both before a bad body is reported.
 */
export const GLOBAL_GUARDS = [ForwardedForGuard, RequestLimitGuard, AuthenticationGuard, ClearanceGuard, BodyErrorGuard] as const;

/** The modules that serve routes, in the order the OpenAPI document lists them. */
const ROUTE_MODULES = [HealthModule, FleetModule, AssetsModule, AuditModule, DeliveryModule, ObservabilityModule];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        RateLimitModule,
        AuthModule,
        ...ROUTE_MODULES,
        ImportModule,
        TracingModule,
        // Last: Nest registers routes in module order, and its catch-all routes must come after the real ones.
        MethodNotAllowedModule.covering(ROUTE_MODULES),
      ],
      providers: [
        BodyErrorGuard,
        ...GLOBAL_GUARDS.map((guard) => ({ provide: APP_GUARD, useExisting: guard })),
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
