import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AssetsModule } from './assets';
import { AuditModule } from './audit';
import { AuthModule } from './auth';
import { ApiExceptionFilter, BodyErrorInterceptor, createValidationPipe } from './common';
import { type AppConfig, ConfigModule } from './config';
import { DatabaseModule } from './database';
import { FleetModule } from './fleet';
import { HealthModule } from './health';
import { ImportModule } from './import';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        AuthModule,
        AuditModule,
        FleetModule,
        AssetsModule,
        ImportModule,
        HealthModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: BodyErrorInterceptor },
        { provide: APP_PIPE, useFactory: createValidationPipe },
      ],
    };
  }
}
