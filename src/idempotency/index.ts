export { IdempotencyModule } from './idempotency.module';
export { ApiIdempotencyKeyMismatchResponse, IDEMPOTENCY_IN_USE, IDEMPOTENCY_MISMATCH, Idempotent, RETRY_AFTER_IN_USE } from './idempotent.decorator';
