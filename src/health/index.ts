export { HealthModule } from './health.module';
export { drainOnSignals, ShutdownState } from './graceful-shutdown';
export { reportStartupFailure, StartupFailureQuietLogger } from './startup-failure';
export { listenOn, reservePort } from './listen';
