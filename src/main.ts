import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp, createHttpAdapter } from './app.setup';
import { ConfigurationError, loadAppConfig } from './config';

async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), createHttpAdapter(), {
    bodyParser: false,
  });
  configureApp(app).enableShutdownHooks();
  await app.listen(config.port);
  new Logger('Bootstrap').log(`fleet-registry listening on http://localhost:${config.port} (Swagger UI: /docs)`);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof ConfigurationError ? error.message : error);
  process.exit(1);
});
