import type { NestExpressApplication } from '@nestjs/platform-express';
import { assignRequestId, deferBodyErrors, serveApiAlias } from './common';
import { APP_CONFIG, type AppConfig } from './config';
import { setupSwagger } from './swagger';

export const BODY_LIMIT = '16kb';

/**
 * The Express-level wiring shared by the server and the e2e tests. The app must be
 * created with `{ bodyParser: false }` so the body limit here is the only one.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  app.disable('x-powered-by');
  // The client address the audit trail records: behind N proxies it is the one the Nth proxy saw.
  app.set('trust proxy', app.get<AppConfig>(APP_CONFIG).trustProxyHops);
  app.use(assignRequestId);
  app.use(serveApiAlias);
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.use(deferBodyErrors);
  setupSwagger(app);
  return app;
}
