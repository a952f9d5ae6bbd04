import { DynamicModule, Global, Module, type Provider } from '@nestjs/common';
import type { AppConfig } from './app-config';

// One token a concern: each consumer injects what it reads, typed as that concern alone.
export const SERVER_CONFIG = Symbol('SERVER_CONFIG');
export const OBSERVABILITY_CONFIG = Symbol('OBSERVABILITY_CONFIG');
export const DATABASE_CONFIG = Symbol('DATABASE_CONFIG');
export const DATABASE_CLOCK_CONFIG = Symbol('DATABASE_CLOCK_CONFIG');
export const TOKEN_CONFIG = Symbol('TOKEN_CONFIG');
export const DEMO_SEED_CONFIG = Symbol('DEMO_SEED_CONFIG');
export const RATE_LIMIT_CONFIG = Symbol('RATE_LIMIT_CONFIG');
export const AUDIT_CONFIG = Symbol('AUDIT_CONFIG');
export const DECOMMISSION_APPROVAL_CONFIG = Symbol('DECOMMISSION_APPROVAL_CONFIG');
export const DELIVERY_CONFIG = Symbol('DELIVERY_CONFIG');
export const WITNESS_CONFIG = Symbol('WITNESS_CONFIG');
export const IDEMPOTENCY_CONFIG = Symbol('IDEMPOTENCY_CONFIG');
/** The TracingConfig, or undefined when no traces are exported. */
export const TRACING_CONFIG = Symbol('TRACING_CONFIG');

/** Serves the configuration loadAppConfig checked at start-up, one concern a token. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    // The flat concerns (server, database, ...) are each a part of the one object, which is served for each of them.
    const concerns = new Map<symbol, unknown>([
      [SERVER_CONFIG, config],
      [OBSERVABILITY_CONFIG, config],
      [DATABASE_CONFIG, config],
      [DATABASE_CLOCK_CONFIG, config],
      [TOKEN_CONFIG, config],
      [DEMO_SEED_CONFIG, config],
      [RATE_LIMIT_CONFIG, config.rateLimit],
      [AUDIT_CONFIG, config.audit],
      [DECOMMISSION_APPROVAL_CONFIG, config.decommissionApproval],
      [DELIVERY_CONFIG, config.delivery],
      [WITNESS_CONFIG, config.witnesses],
      [IDEMPOTENCY_CONFIG, config.idempotency],
      [TRACING_CONFIG, config.tracing],
    ]);
    // Factories, since Nest would take a value provider's undefined (no tracing) for a missing provider.
    const providers: Provider[] = [...concerns].map(([provide, value]) => ({ provide, useFactory: () => value }));
    return { module: ConfigModule, providers, exports: [...concerns.keys()] };
  }
}
