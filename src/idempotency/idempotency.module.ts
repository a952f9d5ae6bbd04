import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { MetricsModule } from '../observability';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyService } from './idempotency.service';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

/** Idempotency-Key on the decisions marked @Idempotent(): the interceptor, its rules and its table. */
@Module({
  imports: [MetricsModule],
  providers: [IdempotencyKeysRepository, IdempotencyService, { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }],
})
export class IdempotencyModule {}
