export { APP_CONFIG, ConfigModule } from './config.module';
export { ConfigurationError, DECOMMISSION_APPROVAL_POLICIES, loadAppConfig, loadCheckpointKeyConfig, loadDatabaseConfig, loadTokenConfig, loadTracingConfig, LOG_LEVELS } from './app-config';
export { algorithmOf, privateTokenKey, publicTokenKey, readPem, type TokenAlgorithm, type TokenKey } from './token-keys';
export type {
  AppConfig,
  ConfiguredKey,
  DatabaseConfig,
  DatabaseLocation,
  DecommissionApprovalConfig,
  JwtConfig,
  LogLevelName,
  PostgresLocation,
  PostgresTimeouts,
  RateLimitConfig,
  SqliteLocation,
  TokenConfig,
  TracingConfig,
} from './app-config';
