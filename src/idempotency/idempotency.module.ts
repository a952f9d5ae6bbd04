import { Module } from '@nestjs/common';
import { MetricsModule } from '../observability';
import { IdempotencyService } from './idempotency.service';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';

/**
 * Idempotency-Key's rules and table, for the modules whose decisions are marked @Idempotent(): the
 * decorator binds the IdempotencyInterceptor to those routes alone, and Nest builds it in their module.
 * Not a global interceptor: one on every route makes Nest run each request through an RxJS pipeline,
 * which cost a cached fleet page 16 to 23% more server CPU (same-run A/B, docs/performance.md).
 */
@Module({
  imports: [MetricsModule],
  providers: [IdempotencyKeysRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
