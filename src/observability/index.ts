export { ObservabilityModule } from './observability.module';
export { MetricsModule } from './metrics.module';
export { AppLogger, type AppLoggerOptions, wantsJsonLogs } from './app-logger';
export { type FeedLag, Metrics } from './metrics';
export { RequestObserver } from './request-observer';
export { ServingLoad } from './serving-load';
