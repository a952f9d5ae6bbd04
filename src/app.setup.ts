import type { NestExpressApplication } from '@nestjs/platform-express';
import { assignRequestId, deferBodyErrors, serveApiAlias } from './common';
import { APP_CONFIG, type AppConfig } from './config';
import { setupSwagger } from './swagger';

export const BODY_LIMIT = '16kb';

/** The response headers a browser script may read: the ones the API documents. */
const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'WWW-Authenticate'];

/**
 * The Express-level wiring shared by the server and the e2e tests. The app must be
 * created with `{ bodyParser: false }` so the body limit here is the only one.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<AppConfig>(APP_CONFIG);
  app.disable('x-powered-by');
  // The client address the audit trail records: behind N proxies it is the one the Nth proxy saw.
  app.set('trust proxy', config.trustProxyHops);
  if (config.corsOrigins.length > 0) {
    app.enableCors({ origin: config.corsOrigins, exposedHeaders: CORS_EXPOSED_HEADERS, maxAge: 600 });
  }
  app.use(assignRequestId);
  app.use(serveApiAlias);
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.use(deferBodyErrors);
  if (config.swaggerEnabled) {
    setupSwagger(app);
  }
  return app;
}
