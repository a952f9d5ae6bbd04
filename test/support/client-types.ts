import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Where the typed client keeps what the generator writes from the served document: nothing else lives there. */
export const CLIENT_GENERATED_DIR = 'clients/typescript/src/generated';

/**
 * Writes the client's types and SDK for `document` into `outputDir`, replacing what was there, as
 * @hey-api/openapi-ts makes them (ESM-only, hence the import): one `FleetRegistrySdk` class whose
 * `assets`, `audit`, ... groups come from the operation ids (`AssetsController_decommission` becomes
 * `assets.decommission`), with the fetch client the generator bundles.
 */
export async function generateClient(document: OpenAPIObject, outputDir: string): Promise<void> {
  const { createClient } = await import('@hey-api/openapi-ts');
  await createClient({
    input: document as unknown as Record<string, unknown>,
    // No tsconfig lookup, so that the output depends on the document alone.
    output: { path: outputDir, tsConfigPath: null },
    logs: { level: 'silent', file: false },
    plugins: [
      '@hey-api/typescript',
      '@hey-api/client-fetch',
      {
        name: '@hey-api/sdk',
        operations: {
          strategy: 'single',
          containerName: 'FleetRegistrySdk',
          nestingDelimiters: /_/,
          segmentName: (controller: string) => controller.replace(/Controller$/, ''),
        },
      },
    ],
  });
}

/** Every file under `dir`, by its path relative to `dir`, with its content: what the drift check compares. */
export function readGeneratedFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      files.set(path.slice(dir.length + 1), readFileSync(path, 'utf8'));
    }
  }
  return new Map([...files].sort(([a], [b]) => a.localeCompare(b)));
}
