export { APP_CONFIG, ConfigModule } from './config.module';
export { ConfigurationError, loadAppConfig, LOG_LEVELS } from './app-config';
export { algorithmOf, privateTokenKey, publicTokenKey, readPem, type TokenAlgorithm, type TokenKey } from './token-keys';
export type {
  AppConfig,
  ConfiguredKey,
  DatabaseLocation,
  JwtConfig,
  LogLevelName,
  PostgresLocation,
  PostgresTimeouts,
  RateLimitConfig,
  SqliteLocation,
} from './app-config';
