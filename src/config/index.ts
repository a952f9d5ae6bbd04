export { type AppConfig, loadAppConfig } from './app-config';
export { type AuditConfig, type CheckpointKeyConfig, loadCheckpointKeyConfig } from './audit-config';
export {
  AUDIT_CONFIG,
  ConfigModule,
  DATABASE_CLOCK_CONFIG,
  DATABASE_CONFIG,
  DECOMMISSION_APPROVAL_CONFIG,
  DELIVERY_CONFIG,
  DEMO_SEED_CONFIG,
  IDEMPOTENCY_CONFIG,
  OBSERVABILITY_CONFIG,
  RATE_LIMIT_CONFIG,
  SERVER_CONFIG,
  TOKEN_CONFIG,
  TRACING_CONFIG,
  WITNESS_CONFIG,
} from './config.module';
export {
  type DatabaseClockConfig,
  type DatabaseConfig,
  type DatabaseLocation,
  loadDatabaseConfig,
  type PostgresLocation,
  type PostgresTimeouts,
  type SqliteLocation,
} from './database-config';
export { APPROVAL_TTL_MAX_SECONDS, DECOMMISSION_APPROVAL_POLICIES, type DecommissionApprovalConfig } from './decommission-approval-config';
export { type DeliveryConfig, RETRY_CAP_MS, type SyslogTarget } from './delivery-config';
export type { DemoSeedConfig } from './demo-seed-config';
export { ConfigurationError } from './environment';
export { IDEMPOTENCY_TTL_MAX_SECONDS, type IdempotencyConfig } from './idempotency-config';
export { type ConfiguredKey, type JwtConfig, loadTokenConfig, type TokenConfig } from './jwt-config';
export { LOG_LEVELS, type LogLevelName, type ObservabilityConfig } from './observability-config';
export type { RateLimitConfig } from './rate-limit-config';
export type { ServerConfig } from './server-config';
export { algorithmOf, privateTokenKey, publicTokenKey, readPem, type TokenAlgorithm, type TokenKey } from './token-keys';
export { loadTracingConfig, type TracingConfig } from './tracing-config';
export type { ConfiguredWitness, WitnessConfig } from './witness-config';
