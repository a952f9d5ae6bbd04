import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponseDto } from './common';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ERROR_BODY = { $ref: '#/components/schemas/ErrorResponseDto' };

/** Every route that needs a token can answer 401, and any route 500: said once here, not on each handler. */
function addCommonErrors(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!operation) {
        continue;
      }
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      if (!isPublic) {
        operation.responses['401'] = {
          description: 'Missing, invalid or expired bearer token (UNAUTHENTICATED)',
          content: { 'application/json': { schema: ERROR_BODY } },
        };
      }
      operation.responses['500'] = {
        description: 'Unexpected failure (INTERNAL_ERROR)',
        content: { 'application/json': { schema: ERROR_BODY } },
      };
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
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorResponseDto] });
  addCommonErrors(document);
  return document;
}

export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}
