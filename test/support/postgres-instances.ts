import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from './databases';
import { FIXTURE_RECORDS } from './fixtures';
import { migrateAndImport, type RunningServer, runScript, SCRIPTS, startServers } from './processes';

/** Server processes on one PostgreSQL schema, and what a test needs to reach them. */
export interface PostgresInstances {
  cwd: string;
  env: Record<string, string>;
  servers: RunningServer[];
  /** A clearance-9 token, made with `npm run token`. */
  admiral: string;
  /** Stops the servers, drops the schema and removes the folder. */
  stop(): Promise<void>;
}

/**
 * `count` instances on a fresh schema, prepared with the fixture records by the service's own migrate and
 * import, and started without migrating, as an operator runs them behind a load balancer.
 */
export async function startPostgresInstances(name: string, secret: string, count = 2): Promise<PostgresInstances> {
  const cwd = mkdtempSync(join(tmpdir(), `fleet-registry-${name}-`));
  const database = await createTestDatabase('postgres', cwd);
  const servers: RunningServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  };
  try {
    // Racing requests from one address would mostly be refusals: rate limits are tested on their own.
    const env = { DATABASE_URL: database.url, JWT_SECRET: secret, SEED_DEMO: 'false', MIGRATE_ON_START: 'false', RATE_LIMIT_ENABLED: 'false' };
    await migrateAndImport(cwd, env, FIXTURE_RECORDS);
    servers.push(...(await startServers(count, { cwd, env })));
    const admiral = (await runScript(SCRIPTS.token, ['--sub', 'admiral', '--clearance', '9'], { cwd, env })).stdout.trim();
    return { cwd, env, servers, admiral, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
