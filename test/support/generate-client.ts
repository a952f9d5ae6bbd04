import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_SCHEMA_FILE, generateClientTypes } from './client-types';
import { startTestApp } from './test-app';

/** `npm run client:generate`: writes the typed client's types from the document the service serves. */
async function main(): Promise<void> {
  const t = await startTestApp({ records: null });
  try {
    const document = (await t.http().get('/docs-json').expect(200)).body;
    writeFileSync(join(__dirname, '..', '..', '..', CLIENT_SCHEMA_FILE), await generateClientTypes(document));
  } finally {
    await t.close();
  }
}

void main();
