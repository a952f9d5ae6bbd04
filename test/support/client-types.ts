import type { OpenAPIObject } from '@nestjs/swagger';

/** Where the typed client keeps the types generated from the served document. */
export const CLIENT_SCHEMA_FILE = 'clients/typescript/src/schema.ts';

/** The client's types for `document`, as openapi-typescript writes them (ESM-only, hence the import). */
export async function generateClientTypes(document: OpenAPIObject): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const header = '// Generated from the service\'s OpenAPI document by openapi-typescript: `npm run client:generate`. Do not edit.\n';
  return header + astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}
