import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../test/support/databases';
import { type RunningServer, runScript, SCRIPTS, type ServerOptions, startServer } from '../test/support/processes';
import { type FleetSize, generateFleet } from './fleet-data';
import type { Check } from './report';
import { BASE_VESSELS } from './workloads';

/** The servers' CPU; wrk and the driver have another. */
export const SERVER_CPU = 0;
/** Signs the benchmark's tokens and checks them on every side. */
export const SECRET = 'bench-secret-that-is-at-least-32-characters';
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A server under test, and what the driver tracks of it between runs. */
export interface Target {
  label: string;
  server: RunningServer;
  /** How many vessels its database holds. */
  vessels: number;
  /** Where its audit trail is counted; none for the bare Nest app. */
  databaseUrl?: string;
  /** The first asset no request has decommissioned yet. */
  nextAsset: number;
}

/** Generates the fleet once into a SQLite file, then gives each server its own copy, so one's decommissions do not touch another's assets. */
export async function sqliteFleet(dir: string, size: FleetSize, copies: string[]): Promise<string[]> {
  const original = join(dir, `fleet-${size.vessels}.sqlite`);
  await generateFleet(`sqlite:${original}`, size);
  return copies.map((name) => {
    const copy = join(dir, `${name}.sqlite`);
    copyFileSync(original, copy);
    return `sqlite:${copy}`;
  });
}

/** The servers of a run, each pinned to SERVER_CPU, and with --cpu-prof a profile of each written when it stops. */
export class Lab {
  readonly targets: Target[] = [];
  private readonly servers: RunningServer[] = [];
  private readonly postgresDatabases: TestDatabase[] = [];

  constructor(
    readonly dir: string,
    private readonly profileDir?: string,
  ) {}

  async start(label: string, serverOptions: Omit<ServerOptions, 'cwd' | 'cpu'>, databaseUrl?: string, vessels = BASE_VESSELS): Promise<Target> {
    const name = label.replace(/[^\w.-]+/g, '-');
    const profile = this.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${this.profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
    const server = await startServer({ ...serverOptions, cwd: this.dir, cpu: SERVER_CPU, nodeOptions: profile, outputFile: join(this.dir, `${name}.log`) });
    this.servers.push(server);
    const target = { label, server, vessels, databaseUrl, nextAsset: 0 };
    this.targets.push(target);
    return target;
  }

  startService(label: string, databaseUrl: string, vessels = BASE_VESSELS): Promise<Target> {
    // No rate limits: one client sends every request here, and the bare server has none.
    const env = { DATABASE_URL: databaseUrl, JWT_SECRET: SECRET, NODE_ENV: 'production', HOST: '127.0.0.1', RATE_LIMIT_ENABLED: 'false' };
    return this.start(label, { env }, databaseUrl, vessels);
  }

  /** A fresh schema on the PostgreSQL server of TEST_DATABASE_URL (by default the local one), dropped by tearDown(). */
  async postgresDatabase(): Promise<string> {
    process.env.TEST_DATABASE_URL ??= DEFAULT_POSTGRES_URL;
    const database = await createTestDatabase('postgres', this.dir);
    this.postgresDatabases.push(database);
    return database.url;
  }

  /** Stops the servers, so their profiles are written and their databases closed; idempotent. */
  async stopServers(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
  }

  async tearDown(): Promise<void> {
    await this.stopServers();
    await Promise.all(this.postgresDatabases.map((database) => database.drop()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The service's own verifier walks each audit trail the run wrote, the bare server's included: both chains must hold. */
export async function verifyAuditChains(lab: Lab): Promise<Check[]> {
  const checks: Check[] = [];
  for (const { label, databaseUrl } of lab.targets) {
    if (databaseUrl) {
      const { code, stdout, stderr } = await runScript(SCRIPTS.auditVerify, [], { cwd: lab.dir, env: { DATABASE_URL: databaseUrl } });
      checks.push({ ok: code === 0, message: `${label}: ${(stdout || stderr).trim()}` });
    }
  }
  return checks;
}
