import { type AuditConfig, auditConfig, AuditVariables } from './audit-config';
import { type DatabaseClockConfig, databaseClockConfig, DatabaseClockVariables, type DatabaseConfig, databaseConfig, DatabaseVariables } from './database-config';
import { type DecommissionApprovalConfig, decommissionApprovalConfig, DecommissionApprovalVariables } from './decommission-approval-config';
import { type DeliveryConfig, deliveryConfig, DeliveryVariables } from './delivery-config';
import { type DemoSeedConfig, demoSeedConfig, DemoSeedVariables } from './demo-seed-config';
import { type IdempotencyConfig, idempotencyConfig, IdempotencyVariables } from './idempotency-config';
import { readVariables, RuntimeVariables } from './environment';
import { type TokenConfig, tokenConfig, JwtVariables } from './jwt-config';
import { type ObservabilityConfig, observabilityConfig, ObservabilityVariables } from './observability-config';
import { type RateLimitConfig, rateLimitConfig, RateLimitVariables } from './rate-limit-config';
import { type ServerConfig, serverConfig, ServerVariables } from './server-config';
import { type TracingConfig, tracingConfig, TracingVariables } from './tracing-config';
import { type WitnessConfig, witnessConfig, WitnessVariables } from './witness-config';

/** Everything the server reads: each concern's configuration, side by side. */
export interface AppConfig extends ServerConfig, ObservabilityConfig, DatabaseConfig, DatabaseClockConfig, TokenConfig, DemoSeedConfig {
  rateLimit: RateLimitConfig;
  audit: AuditConfig;
  decommissionApproval: DecommissionApprovalConfig;
  delivery: DeliveryConfig;
  witnesses: WitnessConfig;
  idempotency: IdempotencyConfig;
  /** Set when OpenTelemetry traces are exported (docs/operations.md#traces); absent, the SDK is not even loaded. */
  tracing?: TracingConfig;
}

/** Everything the server reads, checked once at start-up. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const [server, runtime, observability, database, databaseClock, jwt, demoSeed, rateLimit, audit, decommissionApproval, delivery, idempotency, tracing, witnesses] = readVariables(env, [
    ServerVariables,
    RuntimeVariables,
    ObservabilityVariables,
    DatabaseVariables,
    DatabaseClockVariables,
    JwtVariables,
    DemoSeedVariables,
    RateLimitVariables,
    AuditVariables,
    DecommissionApprovalVariables,
    DeliveryVariables,
    IdempotencyVariables,
    TracingVariables,
    WitnessVariables,
  ]);
  // Built in this order, so that production without its token keys says so before it is told of its audit key.
  return {
    ...serverConfig(server, runtime),
    ...observabilityConfig(observability, runtime),
    ...tokenConfig(jwt, runtime, cwd),
    ...databaseConfig(database, cwd),
    ...databaseClockConfig(databaseClock),
    ...demoSeedConfig(demoSeed, runtime),
    rateLimit: rateLimitConfig(rateLimit),
    audit: auditConfig(audit, runtime, cwd),
    decommissionApproval: decommissionApprovalConfig(decommissionApproval),
    delivery: deliveryConfig(delivery, runtime, cwd),
    idempotency: idempotencyConfig(idempotency),
    tracing: tracingConfig(tracing),
    witnesses: witnessConfig(witnesses),
  };
}
