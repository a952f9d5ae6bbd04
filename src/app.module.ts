import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AssetsModule } from './assets';
import { AuditModule } from './audit';
import { AuthModule } from './auth';
import { ApiExceptionFilter, BodyErrorModule, createValidationPipe, MethodNotAllowedModule } from './http';
import { type AppConfig, ConfigModule } from './config';
import { DatabaseModule } from './database';
import { FleetModule } from './fleet';
import { HealthModule } from './health';
import { ImportModule } from './import';
import { ObservabilityModule } from './observability';
import { RateLimitModule } from './rate-limit';

/** The modules that serve routes. */
const ROUTE_MODULES = [AuditModule, FleetModule, AssetsModule, HealthModule, ObservabilityModule];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        // Its guard is registered first, so a flood is refused before any token is checked.
        RateLimitModule,
        AuthModule,
        // After AuthModule, so that a bad token or clearance is reported before a bad body.
        BodyErrorModule,
        ...ROUTE_MODULES,
        ImportModule,
        // Last, so that its catch-all routes are registered after the real ones.
        MethodNotAllowedModule.covering(ROUTE_MODULES),
      ],
      providers: [
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
