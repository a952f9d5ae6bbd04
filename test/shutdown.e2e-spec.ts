import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { startLoad } from './support/load';
import { type RunningServer, startServer } from './support/processes';
import { tokenServiceFor } from './support/tokens';

describeEachDatabase('SIGTERM while keep-alive clients keep sending', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let server: RunningServer;
  let bearer: string;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-shutdown-'));
    database = await createTestDatabase(engine, cwd);
    const env = { DATABASE_URL: database.url, JWT_SECRET: 'shutdown-test-secret-of-at-least-32-chars', RATE_LIMIT_ENABLED: 'false' };
    server = await startServer({ cwd, env });
    // Minted in-process: a token command slowed past its timeout on a loaded machine would leave the load unauthenticated.
    bearer = `Bearer ${tokenServiceFor({ JWT_SECRET: env.JWT_SECRET }).issue('admiral', 9, '1h')}`;
  });
  after(async () => {
    server.child.kill('SIGKILL');
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('answers the requests in flight, closes each connection after its answer, and exits', async () => {
    const load = startLoad({ url: server.url, bearer, next: () => ['/v1/fleet/star-destroyers', {}], timeoutMs: 5_000 });
    await sleep(500);
    server.child.kill('SIGTERM');
    const exited = await Promise.race([once(server.child, 'exit').then(() => true), sleep(3_000).then(() => false)]);
    const outcomes = await load.stop();
    assert.ok(exited, 'the server was still running 3 s after SIGTERM');
    assert.ok(outcomes.filter(({ status }) => status === 200).length > 0);
    assert.deepEqual(
      outcomes.filter(({ status }) => status !== 200 && status !== 'no answer'),
      [],
      'requests answered during the shutdown were served normally',
    );
  });
});
