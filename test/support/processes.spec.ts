import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, startServer } from './processes';

describe('startServer when another server holds its port', () => {
  let cwd: string;
  const squatter = createServer((_request, response) => response.end('{"status":"success"}'));

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-processes-'));
    squatter.listen(await freePort(), '0.0.0.0');
    await once(squatter, 'listening');
  });
  after(() => {
    squatter.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('does not take the other server, which answers its health check, for the one it started', async () => {
    const { port } = squatter.address() as { port: number };
    const env = { DATABASE_URL: `sqlite:${join(cwd, 'registry.sqlite')}`, JWT_SECRET: 'processes-test-secret-of-at-least-32-chars' };
    await assert.rejects(startServer({ cwd, env, port }), /another process holds the port/);
  });
});
