import { join } from 'node:path';
import { CLIENT_GENERATED_DIR, generateClient } from './client-types';
import { startTestApp } from './test-app';

/** `npm run client:generate`: rewrites the typed client's generated code from the document the service serves. */
async function main(): Promise<void> {
  const t = await startTestApp({ records: null });
  try {
    const document = (await t.http().get('/docs-json').expect(200)).body;
    await generateClient(document, join(__dirname, '..', '..', '..', CLIENT_GENERATED_DIR));
  } finally {
    await t.close();
  }
}

void main();
