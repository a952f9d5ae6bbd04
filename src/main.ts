import './runtime';
import 'reflect-metadata';
// Before the rest: OpenTelemetry, when OTEL_* ask for traces, must start before the modules it instruments load.
import './instrument';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { browsableUrl, configureApp, createHttpAdapter, drainOnSignals, listenOn, reportStartupFailure, reservePort, StartupFailureQuietLogger } from './bootstrap';
import { loadAppConfig } from './config';
import { wantsJsonLogs } from './observability';

async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  const reserved = await reservePort(config.host, config.port);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), createHttpAdapter(), {
    bodyParser: false,
    abortOnError: false,
    logger: new StartupFailureQuietLogger({ level: config.logLevel, json: wantsJsonLogs(config.production) }),
  });
  configureApp(app);
  drainOnSignals(app, config);
  await app.init();
  const url = await listenOn(app.getHttpServer(), reserved);
  new Logger('Bootstrap').log(`fleet-registry listening on ${url}${config.docsEnabled ? ` (Swagger UI: ${browsableUrl(url)}/docs)` : ''}`);
}

bootstrap().catch((error: unknown) => {
  reportStartupFailure(error);
  process.exit(1);
});
