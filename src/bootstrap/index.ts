export { configureApp, createHttpAdapter, SERVER_TIMEOUTS, serverTimeouts } from './app-setup';
export { createOpenApiDocument } from './swagger';
export { drainOnSignals, ShutdownState } from './graceful-shutdown';
export { ShutdownModule } from './shutdown.module';
export { reportStartupFailure, StartupFailureQuietLogger } from './startup-failure';
export { browsableUrl, listenOn, reservePort } from './listen';
