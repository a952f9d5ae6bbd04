import type { INestApplication } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PUBLIC_OPERATION_EXTENSION } from '../auth';
import { ErrorResponseDto, RATE_LIMITED_MESSAGE } from '../common';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ERROR_BODY = { $ref: '#/components/schemas/ErrorResponseDto' };

function errorResponse(description: string, errorCode: string, message: string) {
  return {
    description,
    content: { 'application/json': { schema: ERROR_BODY, example: { status: 'error', message, error_code: errorCode } } },
  };
}

const REQUEST_ID_HEADER = {
  description: "The caller's X-Request-Id when it sent a sane one, otherwise a generated UUID",
  schema: { type: 'string' },
};

/**
 * Said once here rather than on each handler: a public route needs no token; every route that needs
 * one can answer 401 and 429, and 503, as it reads the database and records its refusals there; a
 * route that takes a body can answer 413 and 415; any route 500; every response carries X-Request-Id.
 */
function addCommonResponses(document: OpenAPIObject): void {
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
          headers: { 'WWW-Authenticate': { description: 'Always `Bearer`', schema: { type: 'string' } } },
        };
        operation.responses['429'] = {
          ...errorResponse('Too many requests or refusals from this client (RATE_LIMITED)', 'RATE_LIMITED', RATE_LIMITED_MESSAGE),
          headers: { 'Retry-After': { description: 'Seconds until the client may try again', schema: { type: 'integer' } } },
        };
        operation.responses['503'] = errorResponse(
          'The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE)',
          'SERVICE_UNAVAILABLE',
          'The service is temporarily unavailable',
        );
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
      for (const response of Object.values(operation.responses)) {
        if (response && !('$ref' in response)) {
          response.headers = { ...response.headers, 'X-Request-Id': REQUEST_ID_HEADER };
        }
      }
      // Swagger UI lists the responses in the document's order.
      operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
}

export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('fleet-registry')
    .setDescription(
      'Records service of the command authority: lists the fleet\'s vessels and decommissions assets from the active records. ' +
        'Every route is also served under the `/api` prefix (`/api/v1/...`). ' +
        'Get a token with `npm run token -- --sub <officer> --clearance <0-10>` and paste it under Authorize.',
    )
    // 3.1: in 3.0 a DELETE's body "SHALL be ignored", and the decommission takes one.
    .setOpenAPIVersion('3.1.0')
    .setVersion('1')
    .addTag('fleet', "The fleet's vessels")
    .addTag('assets', 'Vehicles, equipment and facilities, and their decommissioning')
    .addTag('audit', 'Every decommission attempt and every refused token')
    .addTag('health', 'Liveness and readiness, for load balancers and orchestrators')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponseDto] });
  addCommonResponses(document);
  return document;
}

/** Swagger UI at /docs (where `/` leads), the document at /docs-json; public, as they are not API routes. */
export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    // showCommonExtensions shows a parameter's minimum, maximum and pattern, such as limit's 1..100.
    swaggerOptions: { persistAuthorization: true, showCommonExtensions: true },
  });
  // 302, not a permanent 301/308: browsers would cache that for good, and keep leaving `/` for a /docs
  // that SWAGGER_ENABLED=false or a later real `/` has removed.
  app.getHttpAdapter().get('/', (_request: Request, response: Response) => response.redirect(302, '/docs'));
}
