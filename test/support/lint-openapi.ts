import { describeFindings, lintOpenApiDocument, OPENAPI_LINT_ENV } from './openapi-lint';
import { startTestApp } from './test-app';

/** `npm run lint:openapi`: lints the document the service serves, as the CI test does; exits 1 on any finding, a warning included. */
async function main(): Promise<void> {
  const t = await startTestApp({ records: null, env: OPENAPI_LINT_ENV });
  try {
    const findings = await lintOpenApiDocument((await t.http().get('/docs-json').expect(200)).body);
    console.log(describeFindings(findings));
    process.exitCode = findings.length > 0 ? 1 : 0;
  } finally {
    await t.close();
  }
}

void main();
