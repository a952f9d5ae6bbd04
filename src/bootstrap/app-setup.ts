import { Logger } from '@nestjs/common';
import type { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import helmet from 'helmet';
import { assignRequestId, ExpressObjectsAdapter, fixedHeaders, headersSetBy, inOneLayer, readJsonBodies, repairPathEncoding, serveApiAlias } from '../http';
import { SERVER_CONFIG, type ServerConfig } from '../config';
import { RequestObserver } from '../observability';
import { CORS_EXPOSED_HEADERS } from './cors';
import { setupSwagger } from './swagger';

const BODY_LIMIT = '16kb';

/** How long a client may take, so that slow or idle clients cannot pin sockets. */
export const SERVER_TIMEOUTS = {
  /** To send the request line and headers (slowloris). */
  headersTimeout: 10_000,
  /** To send the whole request, body included. */
  requestTimeout: 30_000,
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeout: 5_000,
  /** How often Node looks for requests past the two limits above (30 s by default); read when the server starts listening. */
  connectionsCheckingInterval: 1_000,
} as const;

/**
 * The timeouts as the server applies them: none longer than the shutdown grace, so a drain never waits
 * on a client that the timeouts would still let take longer.
 */
export function serverTimeouts(shutdownGraceMs: number): typeof SERVER_TIMEOUTS {
  return {
    ...SERVER_TIMEOUTS,
    headersTimeout: Math.min(SERVER_TIMEOUTS.headersTimeout, shutdownGraceMs),
    requestTimeout: Math.min(SERVER_TIMEOUTS.requestTimeout, shutdownGraceMs),
  } as typeof SERVER_TIMEOUTS;
}

/**
 * What every response carries: helmet's security headers and no-store, since answers carry officers'
 * data and refusals that no browser or proxy may keep. Helmet's default policy suits Swagger UI (its
 * scripts are files of its own, its styles inline); only the upgrade to https is dropped, which would
 * break the docs on a plain-http deployment.
 */
const RESPONSE_HEADERS = [
  ...headersSetBy(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } })),
  ['Cache-Control', 'no-store'],
] as const;


/**
 * Express reads its routing settings once, when its router is made, and Nest's adapter makes it: so
 * they are set on the instance before the adapter sees it. /V1/ASSETS, /v1/assets/ and the like are
 * then other paths, never a route.
 */
export function createHttpAdapter(): ExpressAdapter {
  const instance = express();
  instance.set('case sensitive routing', true);
  instance.set('strict routing', true);
  return new ExpressObjectsAdapter(instance);
}

/**
 * The Express-level wiring shared by the server and the e2e tests. The app must be created on
 * createHttpAdapter() with `{ bodyParser: false }`, so the body limit here is the only one.
 */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<ServerConfig>(SERVER_CONFIG);
  // First, so every request is timed from its start and logged whoever answers it.
  app.use(app.get(RequestObserver).middleware);
  const timeouts = serverTimeouts(config.shutdownGraceMs);
  Object.assign(app.getHttpServer(), timeouts);
  if (timeouts.requestTimeout < SERVER_TIMEOUTS.requestTimeout) {
    new Logger('Bootstrap').debug(
      `request timeout ${timeouts.requestTimeout} ms and header timeout ${timeouts.headersTimeout} ms: no longer than SHUTDOWN_GRACE_MS=${config.shutdownGraceMs}`,
    );
  }
  app.disable('x-powered-by');
  // The client address the audit trail records: behind N proxies (or those listed) it is the one the
  // last trusted proxy saw.
  app.set('trust proxy', config.trustProxy);
  if (config.corsOrigins.length > 0) {
    app.enableCors({ origin: config.corsOrigins, exposedHeaders: CORS_EXPOSED_HEADERS, maxAge: 600 });
  }
  // Responses are never cached, so Express need not hash each body into an ETag.
  app.set('etag', false);
  // One Express layer for the rest: a layer per middleware cost the router more than their own work.
  app.use(inOneLayer(fixedHeaders(RESPONSE_HEADERS), assignRequestId, repairPathEncoding, serveApiAlias, readJsonBodies(BODY_LIMIT)));
  if (config.docsEnabled) {
    setupSwagger(app);
  }
  return app;
}
