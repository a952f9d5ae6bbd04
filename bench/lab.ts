import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { join } from 'node:path';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { type AuditOutcome, countRows, type DB } from '../src/database';
import { createTestDatabase, type TestDatabase } from '../test/support/databases';
import { type RunningServer, runScript, SCRIPTS, type ServerOptions, startServer } from '../test/support/processes';
import { signHs256 } from '../test/support/tokens';
import { assetId, type FleetSize, generateFleet, openDatabase } from './fleet-data';
import { type Answer, type PacedRequest, steadyStream } from './paced-load';
import type { Check } from './report';
import { BASE_VESSELS, type Workload, WORKLOADS } from './workloads';
import { combineRuns, runWrk, type WrkResult } from './wrk';

/** The checkout: bench/results/ is written here. */
export const ROOT = join(__dirname, '..', '..');
/** The servers' CPU; wrk and the driver have another. */
export const SERVER_CPU = 0;
export const CLIENT_CPU = 1;
/** Signs the benchmark's tokens and checks them on every side. */
export const SECRET = 'bench-secret-that-is-at-least-32-characters';
/** An officer's `Authorization` header, valid for the two hours any run takes at most; one officer per clearance unless named. */
export const bearerToken = (clearance: number, officer = `bench-officer-${clearance}`) =>
  `Bearer ${signHs256({ sub: officer, clearance, exp: Math.floor(Date.now() / 1000) + 7_200 }, { alg: 'HS256', typ: 'JWT' }, SECRET)}`;
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** How long the audit trail may go on growing after a run before the driver moves on regardless. */
const SETTLE_LIMIT_MS = 15_000;

/** A server under test, and what the driver tracks of it between runs. */
export interface Target {
  label: string;
  server: RunningServer;
  /** How many vessels its database holds. */
  vessels: number;
  /** Where its audit trail is counted; none for the bare Nest app. */
  databaseUrl?: string;
  /** Its database's assets, shared by every server on that database. */
  assets: AssetCursor;
  /** The audit:verify of the build that wrote the trail: another build's (a baseline's) knows the migrations it ran, and none later. */
  verifier: string;
}

export interface AssetCursor {
  /** The first asset no request has decommissioned yet. */
  next: number;
}

export interface TargetOptions {
  databaseUrl?: string;
  vessels?: number;
  /** Another server's cursor, when this one serves the same database. */
  assets?: AssetCursor;
  /** Another build's audit:verify, for the trail that build writes (the service's by default). */
  verifier?: string;
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

  async start(
    label: string,
    serverOptions: Omit<ServerOptions, 'cwd' | 'cpu'>,
    { databaseUrl, vessels = BASE_VESSELS, assets = { next: 0 }, verifier = SCRIPTS.auditVerify }: TargetOptions = {},
  ): Promise<Target> {
    const name = label.replace(/[^\w.-]+/g, '-');
    const profile = this.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${this.profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
    const server = await startServer({ ...serverOptions, cwd: this.dir, cpu: SERVER_CPU, nodeOptions: profile, outputFile: join(this.dir, `${name}.log`) });
    this.servers.push(server);
    const target = { label, server, vessels, databaseUrl, assets, verifier };
    this.targets.push(target);
    return target;
  }

  /**
   * The service on `serverUrl` (by default the database itself, else a relay to it). No rate limits
   * unless `env` says otherwise: one client sends every request here, and the bare server has none.
   */
  startService(
    label: string,
    databaseUrl: string,
    options: Omit<TargetOptions, 'databaseUrl'> & { env?: Record<string, string>; serverUrl?: string; script?: string } = {},
  ): Promise<Target> {
    const { env, serverUrl = databaseUrl, script, ...target } = options;
    const serviceEnv = {
      DATABASE_URL: serverUrl,
      JWT_SECRET: SECRET,
      NODE_ENV: 'production',
      AUDIT_SIGNING_KEY_FILE: this.auditSigningKey(),
      HOST: '127.0.0.1',
      RATE_LIMIT_ENABLED: 'false',
      ...env,
    };
    return this.start(label, { env: serviceEnv, script }, { ...target, databaseUrl });
  }

  /** Production requires a checkpoint signing key: one for the lab, shared by its services. */
  private auditSigningKey(): string {
    const file = join(this.dir, 'audit-signing-key.pem');
    if (!existsSync(file)) {
      writeFileSync(file, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    return file;
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

const VERIFY_TIMEOUT_MS = 10 * 60_000;

/** The service's own verifier walks each audit trail the run wrote, the bare server's included: every chain must hold. */
export async function verifyAuditChains(lab: Lab): Promise<Check[]> {
  const writers = new Map<string, { labels: string[]; verifier: string }>();
  for (const { label, databaseUrl, verifier } of lab.targets) {
    if (databaseUrl) {
      writers.set(databaseUrl, { labels: [...(writers.get(databaseUrl)?.labels ?? []), label], verifier });
    }
  }
  const checks: Check[] = [];
  for (const [databaseUrl, { labels, verifier }] of writers) {
    const started = performance.now();
    // A full run leaves a few hundred thousand events, which the verifier reads whole: more than runScript's 30 s by default.
    const { code, stdout, stderr } = await runScript(verifier, [], { cwd: lab.dir, env: { DATABASE_URL: databaseUrl }, timeout: VERIFY_TIMEOUT_MS });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    checks.push({ ok: code === 0, message: `${labels.join(', ')}: ${(stdout || stderr || `no output, exit code ${code}`).trim()} (verified in ${seconds} s)` });
  }
  return checks;
}

/** What `read` finds on a connection of its own to the database, closed after: a count read after a run. */
async function readDatabase<T>(databaseUrl: string, read: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const db = openDatabase(databaseUrl);
  try {
    return await read(db);
  } finally {
    await db.destroy();
  }
}

export const countEvents = (databaseUrl: string, outcome: AuditOutcome) =>
  readDatabase(databaseUrl, async (db) => {
    const { total } = await db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .where('outcome', '=', outcome)
      .executeTakeFirstOrThrow();
    return Number(total);
  });

/** Each allowed decommission's asset and its event's leaf index in the audit tree. */
export const decommissionLeaves = (databaseUrl: string) =>
  readDatabase(databaseUrl, (db) => db.selectFrom('audit_events').select(['asset_id', 'leaf_index']).where('action', '=', 'asset.decommission').where('outcome', '=', 'allowed').execute());

/** The audit tree's stored interior nodes. */
export const countTreeNodes = (databaseUrl: string) => readDatabase(databaseUrl, (db) => countRows(db, 'audit_tree_nodes'));

/** The trail's count once it stops growing: requests wrk gave up on may still be committing. */
export async function settledCount(databaseUrl: string, outcome: AuditOutcome): Promise<number> {
  const deadline = Date.now() + SETTLE_LIMIT_MS;
  let count = await countEvents(databaseUrl, outcome);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const again = await countEvents(databaseUrl, outcome);
    if (again === count || Date.now() > deadline) {
      return again;
    }
    count = again;
  }
}

/** One wrk run of an audited decision against every instance at once, `connections` each; returns the run and the events it left. */
export async function measureDecisions(instances: Target[], workload: Workload, seconds: number, connections: number): Promise<{ run: WrkResult; recorded: number }> {
  const { requests } = workload;
  if (requests.method !== 'DELETE' || !workload.recorded) {
    throw new Error(`${workload.name} is not an audited decision`);
  }
  const [{ databaseUrl, assets }] = instances;
  const before = await countEvents(databaseUrl as string, workload.recorded);
  const stride = instances.length;
  const runs = await Promise.all(
    instances.map((instance, index) =>
      runWrk({
        url: instance.server.url,
        authorization: bearerToken(requests.clearance),
        seconds,
        connections,
        threads: 1,
        cpu: CLIENT_CPU,
        workload: ['decommission', String(assets.next + index), String(stride)],
      }),
    ),
  );
  const run = combineRuns(runs);
  // A denial leaves its asset as it was; a decommission uses its asset up.
  if (workload.recorded === 'allowed') {
    assets.next += run.mostSentByAThread * stride;
  }
  return { run, recorded: (await settledCount(databaseUrl as string, workload.recorded)) - before };
}

/** Linux counts CPU time in ticks of 1/100 s (CLK_TCK). */
export const TICKS_PER_SECOND = 100;

/** CPU seconds the server process has used: around a round, its CPU per answer, which a busy machine disturbs less than its rate. */
export function serverCpuSeconds(target: Target): number {
  const fields = readFileSync(`/proc/${target.server.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, the 14th and 15th fields of the line: the 12th and 13th after the command.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Moves this driver to wrk's CPU, so the servers' CPU runs nothing but servers. */
export function pinDriverToClientCpu(): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(CLIENT_CPU), String(process.pid)], { stdio: 'ignore' });
}

export const loadAverageText = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

/** The machine() line a benchmark prints before its figures. */
export const machineLine = (about: Record<string, unknown>) => `${String(about.cpus)} × ${String(about.cpu)}, Node ${process.version}, load average ${loadAverageText()}`;

/** What a result depends on besides the code: the machine, its load, and the commit measured. */
export function machine(): Record<string, unknown> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  return {
    cpu: cpus()[0]?.model,
    cpus: cpus().length,
    kernel: release(),
    node: process.version,
    wrk: execFileSync('sh', ['-c', 'wrk --version 2>&1 | head -1'], { encoding: 'utf8' }).trim(),
    commit: git('rev-parse', 'HEAD'),
    uncommitted_changes: git('status', '--porcelain') !== '',
    load_average_at_start: loadavg(),
  };
}

/** Ends a benchmark started with options it cannot run with: the reason on stderr, exit code 2, no stack trace. */
function refuseOptions(reason: string): never {
  console.error(reason);
  process.exit(2);
}

/** A benchmark's options, parsed strictly: one it does not take, or a value missing or out of place, ends it with the options it takes. */
export function benchArguments<const T extends ParseArgsOptionsConfig>(options: T) {
  try {
    return parseArgs({ options, strict: true }).values;
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS_')) {
      refuseOptions(`${error.message}\nThis benchmark takes: ${Object.keys(options).map((name) => `--${name}`).join(' ')}`);
    }
    throw error;
  }
}

/** A benchmark's whole-number option (`--rounds 5`): its value, or the fallback when it is not given. */
export function positiveOption(values: Record<string, unknown>, name: string, fallback: number): number {
  const value = values[name] === undefined ? fallback : Number(values[name]);
  if (!Number.isInteger(value) || value < 1) {
    refuseOptions(`--${name} must be a positive integer`);
  }
  return value;
}

/** The options every benchmark's rounds take, for `parseArgs`. */
export const ROUND_OPTIONS = {
  quick: { type: 'boolean', default: false },
  rounds: { type: 'string' },
  duration: { type: 'string' },
  'warm-up': { type: 'string' },
  connections: { type: 'string' },
} as const;

/** Decommissions of fresh assets on the instance, one officer, `rate` a second for `seconds`; each asset is pushed to `sent` as it goes. */
export function pacedDecommissions(target: Target, rate: number, seconds: number, sent: string[] = []): Promise<Answer[]> {
  const officer = bearerToken(WORKLOADS.decommission.requests.clearance);
  return steadyStream(target.server.url, rate, seconds, (): PacedRequest => {
    const asset = assetId(target.assets.next++);
    sent.push(asset);
    return { path: `/v1/assets/${asset}`, authorization: officer, forwardedFor: '127.0.0.1' };
  });
}
