import { type INestApplication, NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { DocumentBuilder, type HeaderObject, type OpenAPIObject, type ReferenceObject, type ResponseObject, type ServerObject, SwaggerModule } from '@nestjs/swagger';
import { PUBLIC_OPERATION_EXTENSION } from '../auth';
import { ErrorResponseDto, RATE_LIMITED_MESSAGE, WWW_AUTHENTICATE_HEADER } from '../common';
import { WEBHOOK_DELIVERY } from '../delivery';
import { RATE_LIMIT_CONFIG, type RateLimitConfig, SERVER_CONFIG, type ServerConfig } from '../config';
import { API_ALIAS, isServedUnderApiAlias, SANE_REQUEST_ID } from '../http';
import { UnguardedRequestLimit, UNTHROTTLED_OPERATION_EXTENSION } from '../rate-limit';
import { CORS_EXPOSED_HEADERS } from './cors';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ERROR_BODY = { $ref: '#/components/schemas/ErrorResponseDto' };
/** The request limit's window, and so the longest a client is told to wait. */
const RATE_LIMIT_WINDOW_SECONDS = 60;
const RATE_LIMITED_DESCRIPTION = 'Too many requests or refusals from this client (RATE_LIMITED)';

function errorResponse(description: string, errorCode: string, message: string) {
  return {
    description,
    content: { 'application/json': { schema: ERROR_BODY, example: { status: 'error', message, error_code: errorCode } } },
  };
}

const integerHeader = (description: string, minimum: number, maximum: number): HeaderObject => ({
  description,
  schema: { type: 'integer', format: 'int32', minimum, maximum },
});

/**
 * The headers the service sets on answers whatever the route, as this configuration sends them: each
 * described once under components.headers and referenced from the responses that carry it.
 */
function sharedHeaders(rateLimit: RateLimitConfig, { corsOrigins }: ServerConfig): { everywhere: Record<string, HeaderObject>; throttled: Record<string, HeaderObject> } {
  const everywhere: Record<string, HeaderObject> = {
    'X-Request-Id': {
      description: "The caller's X-Request-Id when it sent a sane one, otherwise a generated UUID",
      schema: { type: 'string', maxLength: 128, pattern: SANE_REQUEST_ID.source },
    },
  };
  if (corsOrigins.length > 0) {
    everywhere['Access-Control-Allow-Origin'] = {
      description: "The request's Origin, when it is one of CORS_ORIGINS; absent otherwise",
      schema: { type: 'string', enum: corsOrigins },
    };
    everywhere['Access-Control-Expose-Headers'] = {
      description: 'The response headers a browser script may read, sent with Access-Control-Allow-Origin',
      schema: { type: 'string', enum: [CORS_EXPOSED_HEADERS.join(',')] },
    };
  }
  const throttled: Record<string, HeaderObject> = rateLimit.enabled
    ? {
        'X-RateLimit-Limit': integerHeader("Requests this client may make per minute (RATE_LIMIT_REQUESTS_PER_MINUTE), on every answer but the request limit's own 429", rateLimit.requestsPerMinute, rateLimit.requestsPerMinute),
        'X-RateLimit-Remaining': integerHeader('Requests left to this client in the current minute', 0, rateLimit.requestsPerMinute),
        'X-RateLimit-Reset': integerHeader('Seconds until the current minute ends and the count starts again', 0, RATE_LIMIT_WINDOW_SECONDS),
      }
    : {};
  return { everywhere, throttled };
}

const referencesTo = (headers: Record<string, HeaderObject>): Record<string, ReferenceObject> =>
  Object.fromEntries(Object.keys(headers).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/**
 * Said once here rather than on each handler: a public route needs no token; every route that needs
 * one can answer 401 and 429, and 503, as it reads the database and records its refusals there; a
 * route that takes a body can answer 413 and 415; any route 500; every response carries X-Request-Id
 * (and the CORS headers, when configured), and every response of a rate-limited route the rate-limit headers.
 */
function addCommonResponses(document: OpenAPIObject, rateLimit: RateLimitConfig, server: ServerConfig): void {
  const { everywhere, throttled } = sharedHeaders(rateLimit, server);
  document.components = { ...document.components, headers: { ...document.components?.headers, ...everywhere, ...throttled } };
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation) {
        continue;
      }
      // @Public() marks the operation; the document-wide bearer requirement is lifted here.
      if (PUBLIC_OPERATION_EXTENSION in operation) {
        operation.security = [];
      } else {
        operation.responses['401'] = {
          ...errorResponse('Missing, invalid or expired bearer token (UNAUTHENTICATED)', 'UNAUTHENTICATED', 'A bearer token is required'),
          headers: WWW_AUTHENTICATE_HEADER,
        };
        // An operation with a 429 of its own (a limit of its domain) keeps its example and Retry-After; the rate limit's joins its description.
        const own429 = operation.responses['429'] as ResponseObject | undefined;
        operation.responses['429'] = own429
          ? { ...own429, description: `${own429.description}. Also: ${RATE_LIMITED_DESCRIPTION}` }
          : {
              ...errorResponse(RATE_LIMITED_DESCRIPTION, 'RATE_LIMITED', RATE_LIMITED_MESSAGE),
              headers: { 'Retry-After': integerHeader('Seconds until the client may try again', 1, RATE_LIMIT_WINDOW_SECONDS) },
            };
        // A route that documents a 503 of its own adds its reason, and its headers, to the shared one.
        const own = operation.responses['503'] as ResponseObject | undefined;
        operation.responses['503'] = {
          ...errorResponse(
            `The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE)${own ? `; or ${own.description}` : ''}`,
            'SERVICE_UNAVAILABLE',
            'The service is temporarily unavailable',
          ),
          ...(own?.headers && { headers: own.headers }),
        };
      }
      if (operation.requestBody) {
        operation.responses['413'] = errorResponse('Body over 16 KB (PAYLOAD_TOO_LARGE)', 'PAYLOAD_TOO_LARGE', 'Request body exceeds the 16 KB limit');
        operation.responses['415'] = errorResponse(
          'Body sent with a Content-Type other than application/json (UNSUPPORTED_MEDIA_TYPE)',
          'UNSUPPORTED_MEDIA_TYPE',
          'Request body must be application/json',
        );
      }
      operation.responses['500'] = errorResponse('Unexpected failure (INTERNAL_ERROR)', 'INTERNAL_ERROR', 'Internal server error');
      const common = referencesTo(UNTHROTTLED_OPERATION_EXTENSION in operation ? everywhere : { ...everywhere, ...throttled });
      for (const response of Object.values(operation.responses) as (ResponseObject | ReferenceObject)[]) {
        if (!('$ref' in response)) {
          response.headers = { ...response.headers, ...common };
        }
      }
      // Swagger UI lists the responses in the document's order.
      operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
}

const SERVER_DESCRIPTION = 'The instance that serves this document, in whatever environment it runs (local, staging or production)';
// Relative: the routes are wherever this document was fetched from.
// x-internal: the command authority's own records service, not one offered outside it.
const ROOT_SERVER: ServerObject & { 'x-internal': boolean } = { url: '/', description: SERVER_DESCRIPTION, 'x-internal': true };
const ALIAS_SERVER: ServerObject & { 'x-internal': boolean } = { url: API_ALIAS, description: `${SERVER_DESCRIPTION}, under the ${API_ALIAS} prefix`, 'x-internal': true };

/**
 * The /api alias serves the versioned API only, so its server is listed on those paths (beside the
 * root, as a path item's servers replace the document's) and not on the health checks or /metrics.
 */
function addAliasServers(document: OpenAPIObject): void {
  for (const [path, pathItem] of Object.entries(document.paths)) {
    if (isServedUnderApiAlias(path)) {
      pathItem.servers = [ROOT_SERVER, ALIAS_SERVER];
    }
  }
}

/** The package is UNLICENSED (package.json): the document says so rather than name no license. */
const LICENSE = { name: 'UNLICENSED: proprietary to the command authority, not licensed for use outside it' };

/** What the token check enforces (src/auth/token.service.ts), in the terms of RFC 8725, the JWT best current practices. */
const BEARER_DESCRIPTION =
  'A JWT signed as a JWS and checked following RFC8725 (JSON Web Token Best Current Practices): each key verifies with its one ' +
  'algorithm only (HS256 for JWT_SECRET, RS256, ES256 or EdDSA for JWT_PUBLIC_KEY and JWT_JWKS_URL keys), so `none` and algorithm ' +
  'confusion are refused; a token never names the key it is checked with (jku, jwk, x5u and x5c are refused); `exp` is required and ' +
  'may lie no further ahead than JWT_MAX_LIFETIME_SECONDS; `iss` and `aud` are required and checked when JWT_ISSUER and JWT_AUDIENCE are set. ' +
  'Claims: `sub`, the officer, and `clearance`, an integer from 0 to 10.';

export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('fleet-registry')
    .setDescription(
      'Records service of the command authority: lists the fleet\'s vessels and decommissions assets from the active records. ' +
        'Every `/v1` route is also served under the `/api` prefix (`/api/v1/...`); the health checks and `/metrics` are not. ' +
        'Get a token with `npm run token -- --sub <officer> --clearance <0-10>` and paste it under Authorize.',
    )
    // 3.1: in 3.0 a DELETE's body "SHALL be ignored", and the decommission takes one.
    .setOpenAPIVersion('3.1.0')
    .setVersion('1')
    .addTag('fleet', "The fleet's vessels")
    .addTag('assets', 'Vehicles, equipment and facilities, and their decommissioning')
    .addTag('decommission requests', 'Decommissions and recommissions waiting for a second officer, when DECOMMISSION_APPROVAL=required')
    .addTag('audit', 'Every decommission attempt and every refused token')
    .addTag('webhooks', "Signed POSTs of the trail's events to subscribers' urls, and the subscriptions (the delivery itself: the document's webhooks entry)")
    .addTag('health', 'Liveness and readiness, for load balancers and orchestrators')
    .addTag('metrics', 'Prometheus metrics, for the monitoring system')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: BEARER_DESCRIPTION }, 'bearer')
    .addSecurityRequirements('bearer')
    .build();
  // Set here rather than with the builder: its setLicense requires a URL, and the root server is reused on the alias's paths.
  config.info.license = LICENSE;
  config.servers = [ROOT_SERVER];
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponseDto] });
  document.webhooks = { 'audit-event': WEBHOOK_DELIVERY };
  addCommonResponses(document, app.get<RateLimitConfig>(RATE_LIMIT_CONFIG), app.get<ServerConfig>(SERVER_CONFIG));
  addAliasServers(document);
  return document;
}

/** Where Express serves Swagger UI and the document itself, past every guard. */
const DOCS_PATHS = ['/docs', '/docs-json'];

/**
 * Swagger UI at /docs (where `/` leads), the document at /docs-json; public, as they are not API routes,
 * but counted against the client's request budget like them. Source maps only where configured (not
 * in production), and the document in JSON only: YAML would be a second copy of it to serve.
 */
export function setupSwagger(app: INestApplication): void {
  const limit = app.get(UnguardedRequestLimit);
  app.use(DOCS_PATHS, (req: Request, res: Response, next: NextFunction) => void limit.count(req, res, next));
  if (!app.get<ServerConfig>(SERVER_CONFIG).docsSourceMaps) {
    app.use('/docs', (req: Request, _res: Response, next: NextFunction) => next(req.path.endsWith('.map') ? new NotFoundException() : undefined));
  }
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), {
    raw: ['json'],
    jsonDocumentUrl: 'docs-json',
    // showCommonExtensions shows a parameter's minimum, maximum and pattern, such as limit's 1..100.
    swaggerOptions: { persistAuthorization: true, showCommonExtensions: true },
  });
  // 302, not a permanent 301/308: browsers would cache that for good, and keep leaving `/` for a /docs
  // that DOCS_ENABLED=false or a later real `/` has removed.
  app.getHttpAdapter().get('/', (_request: Request, response: Response) => response.redirect(302, '/docs'));
}
