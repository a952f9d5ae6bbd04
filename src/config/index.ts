export { APP_CONFIG, ConfigModule } from './config.module';
export { ConfigurationError, loadAppConfig } from './app-config';
export type { AppConfig, ConfiguredKey, DatabaseLocation, JwtConfig, PostgresLocation, RateLimitConfig, SqliteLocation } from './app-config';
