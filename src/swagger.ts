import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PUBLIC_OPERATION_EXTENSION } from './auth';
import { ErrorResponseDto, RATE_LIMITED_MESSAGE } from './common';

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
 * Said once here rather than on each handler: a public route needs no token, every route that needs
 * one can answer 401 and 429,
 * any route 500, and every response carries X-Request-Id.
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
      }
      operation.responses['500'] = errorResponse('Unexpected failure (INTERNAL_ERROR)', 'INTERNAL_ERROR', 'Internal server error');
      for (const response of Object.values(operation.responses)) {
        if (response && !('$ref' in response)) {
          response.headers = { ...response.headers, 'X-Request-Id': REQUEST_ID_HEADER };
        }
      }
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

export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
