import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AuditOutcome } from '../src/database';
import { createTestDatabase, type TestDatabase } from '../test/support/databases';
import { type RunningServer, type ServerOptions, startServer } from '../test/support/processes';
import { signHs256 } from '../test/support/tokens';
import { assetId, type FleetSize, generateFleet, openDatabase, vesselId } from './fleet-data';
import { type Check, type ComparisonResult, formatComparison, ratios, type SideResult } from './report';
import { runWrk, type WrkResult } from './wrk';

/*
 * `npm run bench`: the compiled service against yardsticks on the same machine, side by side, in
 * alternating rounds (A B A B ...) after a warm-up of each, with the servers pinned to one CPU and
 * wrk (and this driver) to another. See docs/performance.md for the method and the targets.
 */

const ROOT = join(__dirname, '..', '..');
const SERVER_CPU = 0;
const CLIENT_CPU = 1;
const BASE_VESSELS = 10_000;
const DEEP_OFFSET = 5_000;
const SECRET = 'bench-secret-that-is-at-least-32-characters';
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** Well above what either side commits at synchronous=FULL, so no run runs out of fresh assets. */
const DECOMMISSIONS_PER_SECOND_BOUND = 4_000;
const FLEET = '/v1/fleet/star-destroyers';

interface Options {
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  connections: number;
  threads: number;
  assets: number;
  /** Adds the scaling suite: the listing at this many vessels against the same at BASE_VESSELS. */
  largeFleet?: number;
  postgres: boolean;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      vessels: { type: 'string' },
      postgres: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      'warm-up': { type: 'string' },
      connections: { type: 'string' },
      threads: { type: 'string' },
      assets: { type: 'string' },
    },
  });
  const positive = (name: keyof typeof values, fallback: number) => {
    const value = values[name] === undefined ? fallback : Number(values[name]);
    if (!Number.isInteger(value) || value < 1) {
      throw new Error(`--${name} must be a positive integer`);
    }
    return value;
  };
  const rounds = positive('rounds', values.quick ? 3 : 5);
  const seconds = positive('duration', values.quick ? 1 : 10);
  const warmUpSeconds = positive('warm-up', values.quick ? 1 : 5);
  const threads = positive('threads', 1);
  return {
    rounds,
    seconds,
    warmUpSeconds,
    connections: positive('connections', 32),
    threads,
    assets: positive('assets', (warmUpSeconds + rounds * seconds) * DECOMMISSIONS_PER_SECOND_BOUND + 1_000),
    largeFleet: values.vessels === undefined ? undefined : positive('vessels', BASE_VESSELS),
    postgres: values.postgres,
  };
}

/** A server under test, and what the driver tracks of it between runs. */
interface Target {
  label: string;
  server: RunningServer;
  /** How many vessels its database holds. */
  vessels: number;
  /** Where its audit trail is counted; none for the bare Nest app. */
  databaseUrl?: string;
  /** The first asset no request has decommissioned yet. */
  nextAsset: number;
}

type Requests = { method: 'GET'; paths: (vessels: number) => string[] } | { method: 'DELETE'; clearance: number };

interface Workload {
  name: string;
  requests: Requests;
  /** The status every answer should have. */
  status: number;
  /** The audit event every answer must leave on the record. */
  recorded?: AuditOutcome;
  /** The route needs no token. */
  public?: boolean;
  /** Work the service may not do yet: a side whose probe answer fails this is shown as n/a rather than failing the run. */
  supportedBy?: (answer: unknown) => boolean;
}

const get = (paths: (vessels: number) => string[]): Requests => ({ method: 'GET', paths });
const tenths = Array.from({ length: 10 }, (_, index) => index);
const hasNextCursor = (answer: unknown) => (answer as { data?: { next_cursor?: unknown } }).data?.next_cursor !== undefined;

const WORKLOADS = {
  firstPage: { name: 'fleet, first page', requests: get(() => [FLEET]), status: 200 },
  sectorPage: { name: 'fleet, first page of a sector', requests: get(() => [`${FLEET}?sector=Outer%20Rim`]), status: 200 },
  hundredPerPage: { name: 'fleet, 100 per page', requests: get(() => [`${FLEET}?limit=100`]), status: 200 },
  deepPage: {
    name: `fleet, page at offset ${DEEP_OFFSET.toLocaleString('en')} (page)`,
    requests: get(() => [`${FLEET}?limit=100&page=${DEEP_OFFSET / 100 + 1}`]),
    status: 200,
  },
  deepCursor: {
    name: `fleet, page at offset ${DEEP_OFFSET.toLocaleString('en')} (cursor)`,
    requests: get(() => [`${FLEET}?limit=100&after=${vesselId(DEEP_OFFSET - 1)}`]),
    status: 200,
    supportedBy: hasNextCursor,
  },
  decommission: { name: 'decommission, a fresh asset each', requests: { method: 'DELETE', clearance: 7 }, status: 200, recorded: 'allowed' },
  denied: { name: 'decommission denied, clearance 6', requests: { method: 'DELETE', clearance: 6 }, status: 403, recorded: 'denied' },
  health: { name: 'liveness', requests: get(() => ['/health/live']), status: 200, public: true },
  firstTenPages: {
    name: 'fleet, pages 1 to 10 in turn (100 per page)',
    requests: get(() => tenths.map((page) => `${FLEET}?limit=100&page=${page + 1}`)),
    status: 200,
  },
  cursorPages: {
    name: 'fleet, cursor pages at each tenth of the fleet in turn',
    requests: get((vessels) => tenths.map((tenth) => `${FLEET}?limit=100&after=${vesselId((tenth * vessels) / 10)}`)),
    status: 200,
    supportedBy: hasNextCursor,
  },
} satisfies Record<string, Workload>;

const LISTINGS: Workload[] = [WORKLOADS.firstPage, WORKLOADS.sectorPage, WORKLOADS.hundredPerPage, WORKLOADS.deepPage, WORKLOADS.deepCursor];
const WRITES: Workload[] = [WORKLOADS.decommission, WORKLOADS.denied];

interface Comparison {
  suite: string;
  workload: Workload;
  a: Target;
  b: Target;
}

const bearer = (clearance: number) =>
  `Bearer ${signHs256({ sub: `bench-officer-${clearance}`, clearance, exp: Math.floor(Date.now() / 1000) + 7_200 }, { alg: 'HS256', typ: 'JWT' }, SECRET)}`;
const tokens = { officer: bearer(7), byClearance: new Map([7, 6].map((clearance) => [clearance, bearer(clearance)])) };

function authorization(workload: Workload): string | undefined {
  if (workload.public) {
    return undefined;
  }
  return workload.requests.method === 'DELETE' ? tokens.byClearance.get(workload.requests.clearance) : tokens.officer;
}

function firstRequest(workload: Workload, target: Target): string {
  return workload.requests.method === 'GET'
    ? `GET ${workload.requests.paths(target.vessels)[0]}`
    : `DELETE /v1/assets/${assetId(target.nextAsset)} with a clearance ${workload.requests.clearance} token`;
}

/** One request outside the measured runs: does the side do this work, and answer as expected? */
async function probe(workload: Workload, target: Target): Promise<{ status: number; answer: unknown }> {
  const { requests } = workload;
  const init: RequestInit = { headers: { Authorization: authorization(workload) ?? '', 'Content-Type': 'application/json' } };
  const path = requests.method === 'GET' ? requests.paths(target.vessels)[0] : `/v1/assets/${assetId(target.nextAsset++)}`;
  if (requests.method === 'DELETE') {
    Object.assign(init, { method: 'DELETE', body: JSON.stringify({ reason: 'Benchmark probe', authorized_by: 'Bench Officer' }) });
  }
  const response = await fetch(`${target.server.url}${path}`, init);
  return { status: response.status, answer: await response.json() };
}

async function countEvents(databaseUrl: string, outcome: AuditOutcome): Promise<number> {
  const db = openDatabase(databaseUrl);
  try {
    const { total } = await db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .where('outcome', '=', outcome)
      .executeTakeFirstOrThrow();
    return Number(total);
  } finally {
    await db.destroy();
  }
}

async function measure(workload: Workload, target: Target, seconds: number, options: Options): Promise<WrkResult> {
  const { requests } = workload;
  const result = await runWrk({
    url: target.server.url,
    authorization: authorization(workload),
    seconds,
    connections: options.connections,
    threads: options.threads,
    cpu: CLIENT_CPU,
    workload: requests.method === 'GET' ? ['get', ...requests.paths(target.vessels)] : ['decommission', String(target.nextAsset), String(options.threads)],
  });
  if (requests.method === 'DELETE') {
    target.nextAsset += result.mostSentByAThread * options.threads;
  }
  return result;
}

/** Every answer had the workload's status, and no connection failed. */
function answersCheck(workload: Workload, side: SideResult): Check {
  const runs = [side.warmUp, ...side.rounds].filter((run): run is WrkResult => run !== undefined);
  const statuses: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, count] of Object.entries(run.statuses)) {
      statuses[status] = (statuses[status] ?? 0) + count;
    }
  }
  const others = Object.entries(statuses).filter(([status]) => Number(status) !== workload.status);
  const socketErrors = runs.reduce((sum, run) => sum + run.socketErrors, 0);
  const answered = (statuses[workload.status] ?? 0).toLocaleString('en');
  return others.length === 0 && socketErrors === 0
    ? { ok: true, message: `${side.label}: all ${answered} answers ${workload.status}` }
    : { ok: false, message: `${side.label}: answers by status ${JSON.stringify(statuses)}, ${socketErrors} socket errors` };
}

/**
 * Every answer of the workload's status is on the record. wrk stops with up to one request per
 * connection in flight, which the server may record without wrk seeing the answer: at most that many more.
 */
function recordedCheck(workload: Workload, side: SideResult, recorded: number, options: Options): Check {
  const runs = [side.warmUp, ...side.rounds].filter((run): run is WrkResult => run !== undefined);
  const answered = runs.reduce((sum, run) => sum + (run.statuses[workload.status] ?? 0), 0);
  const inFlight = runs.length * options.connections;
  const ok = recorded >= answered && recorded <= answered + inFlight;
  return {
    ok,
    message: `${side.label}: ${answered.toLocaleString('en')} answered ${workload.status}, ${recorded.toLocaleString('en')} ${workload.recorded} audit events recorded (up to ${inFlight} more may have been in flight)`,
  };
}

async function compare({ suite, workload, a, b }: Comparison, options: Options): Promise<ComparisonResult> {
  const result: ComparisonResult = { suite, workload: workload.name, request: firstRequest(workload, a), a: { label: a.label, rounds: [] }, b: { label: b.label, rounds: [] }, checks: [] };
  const sides = [
    { target: a, side: result.a },
    { target: b, side: result.b },
  ];
  const probes = [];
  for (const { target, side } of sides) {
    const { status, answer } = await probe(workload, target);
    probes.push(answer);
    if (status === workload.status && (workload.supportedBy?.(answer) ?? true)) {
      continue;
    }
    const problem = `answered ${status} ${JSON.stringify(answer).slice(0, 160)}`;
    if (workload.supportedBy) {
      side.notApplicable = problem;
    } else {
      result.checks.push({ ok: false, message: `${side.label} ${problem}` });
    }
  }
  // Both sides hold the same fleet: their pages must be the same, or they are not doing the same job.
  if (workload.requests.method === 'GET' && !workload.public && a.vessels === b.vessels && !result.a.notApplicable && !result.b.notApplicable) {
    const page = (answer: unknown) => {
      const { vessels, total_count } = (answer as { data?: { vessels?: unknown; total_count?: unknown } }).data ?? {};
      return JSON.stringify({ vessels, total_count });
    };
    const same = page(probes[0]) === page(probes[1]);
    result.checks.push({ ok: same, message: same ? 'both sides answer the same page and total_count' : 'the two sides answer different pages or total_count' });
  }
  const measured = sides.filter(({ side }) => !side.notApplicable);
  const audited = measured.filter(({ target }) => workload.recorded && target.databaseUrl);
  const before = await Promise.all(audited.map(({ target }) => countEvents(target.databaseUrl as string, workload.recorded as AuditOutcome)));
  for (const { target, side } of measured) {
    side.warmUp = await measure(workload, target, options.warmUpSeconds, options);
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const { target, side } of measured) {
      side.rounds.push(await measure(workload, target, options.seconds, options));
    }
  }
  for (const { side } of measured) {
    result.checks.push(answersCheck(workload, side));
  }
  for (const [index, { target, side }] of audited.entries()) {
    const recorded = (await countEvents(target.databaseUrl as string, workload.recorded as AuditOutcome)) - before[index];
    result.checks.push(recordedCheck(workload, side, recorded, options));
  }
  if (measured.length === 2) {
    result.ratios = ratios(result.a.rounds, result.b.rounds);
  }
  return result;
}

/** Generates the fleet once into a SQLite file, then gives each server its own copy, so one's decommissions do not touch another's assets. */
async function sqliteFleet(dir: string, size: FleetSize, copies: string[]): Promise<string[]> {
  const original = join(dir, `fleet-${size.vessels}.sqlite`);
  await generateFleet(`sqlite:${original}`, size);
  return copies.map((name) => {
    const copy = join(dir, `${name}.sqlite`);
    copyFileSync(original, copy);
    return `sqlite:${copy}`;
  });
}

function serviceOptions(cwd: string, databaseUrl: string): ServerOptions {
  // No rate limits: one client sends every request here, and the bare server has none.
  return {
    cwd,
    cpu: SERVER_CPU,
    env: { DATABASE_URL: databaseUrl, JWT_SECRET: SECRET, NODE_ENV: 'production', HOST: '127.0.0.1', RATE_LIMIT_ENABLED: 'false' },
  };
}

function machine(): Record<string, unknown> {
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

async function main(): Promise<void> {
  const options = readOptions();
  // This driver shares wrk's CPU, so the servers' CPU runs nothing but the server under test.
  execFileSync('taskset', ['-a', '-p', '-c', String(CLIENT_CPU), String(process.pid)], { stdio: 'ignore' });
  const startedAt = new Date();
  const about = machine();
  console.log(
    `${options.rounds} rounds of ${options.seconds} s per side after a ${options.warmUpSeconds} s warm-up, wrk -t${options.threads} -c${options.connections} on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU}`,
  );
  console.log(`${String(about.cpus)} × ${String(about.cpu)}, Node ${process.version}, load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
  console.log('Both SQLite sides at synchronous=FULL in WAL mode; the service with RATE_LIMIT_ENABLED=false, NODE_ENV=production.\n');

  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-compare-'));
  const servers: RunningServer[] = [];
  const postgresDatabases: TestDatabase[] = [];
  const start = async (serverOptions: ServerOptions) => {
    const server = await startServer(serverOptions);
    servers.push(server);
    return server;
  };
  const results: ComparisonResult[] = [];
  try {
    const fleet = { vessels: BASE_VESSELS, assets: options.assets };
    const [serviceUrl, bareUrl] = await sqliteFleet(dir, fleet, ['service', 'bare']);
    const target = (label: string, server: RunningServer, databaseUrl?: string, vessels = BASE_VESSELS): Target => ({ label, server, vessels, databaseUrl, nextAsset: 0 });
    const service = target('service', await start(serviceOptions(dir, serviceUrl)), serviceUrl);
    const bare = target('bare node:http', await start({ cwd: dir, cpu: SERVER_CPU, script: join(__dirname, 'bare-server.js'), env: { DATABASE_URL: bareUrl, JWT_SECRET: SECRET } }), bareUrl);
    const bareNest = target('bare Nest 12 on Express', await start({ cwd: dir, cpu: SERVER_CPU, script: join(__dirname, 'bare-nest.js') }));
    const comparisons: Comparison[] = [
      ...[...LISTINGS, ...WRITES].map((workload) => ({ suite: `SQLite, ${BASE_VESSELS.toLocaleString('en')} vessels`, workload, a: service, b: bare })),
      { suite: 'pipeline', workload: WORKLOADS.health, a: service, b: bareNest },
    ];
    if (options.largeFleet) {
      const vessels = options.largeFleet;
      const [largeUrl] = await sqliteFleet(dir, { vessels, assets: 0 }, ['service-large']);
      const large = target(`service, ${vessels.toLocaleString('en')} vessels`, await start(serviceOptions(dir, largeUrl)), largeUrl, vessels);
      const small = { ...service, label: `service, ${BASE_VESSELS.toLocaleString('en')} vessels` };
      for (const workload of [WORKLOADS.firstTenPages, WORKLOADS.cursorPages]) {
        comparisons.push({ suite: 'scaling', workload, a: large, b: small });
      }
    }
    if (options.postgres) {
      process.env.TEST_DATABASE_URL ??= DEFAULT_POSTGRES_URL;
      const database = await createTestDatabase('postgres', dir);
      postgresDatabases.push(database);
      await generateFleet(database.url, fleet);
      const [sqliteUrl] = await sqliteFleet(dir, fleet, ['service-beside-postgres']);
      const onPostgres = target('service on PostgreSQL', await start(serviceOptions(dir, database.url)), database.url);
      const onSqlite = target('service on SQLite', await start(serviceOptions(dir, sqliteUrl)), sqliteUrl);
      for (const workload of [...LISTINGS, ...WRITES]) {
        comparisons.push({ suite: 'PostgreSQL', workload, a: onPostgres, b: onSqlite });
      }
    }
    for (const comparison of comparisons) {
      const result = await compare(comparison, options);
      results.push(result);
      console.log(`${formatComparison(result)}\n`);
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(postgresDatabases.map((database) => database.drop()));
    rmSync(dir, { recursive: true, force: true });
  }
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const { largeFleet, ...settings } = options;
  const record = { started_at: startedAt, finished_at: new Date(), machine: { ...about, load_average_at_end: loadavg() }, options: { ...settings, large_fleet: largeFleet }, results };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`Written to ${file}`);
  const failed = results.flatMap((result) => result.checks.filter((check) => !check.ok).map((check) => `${result.workload}: ${check.message}`));
  if (failed.length > 0) {
    console.error(`\n${failed.length} check(s) FAILED:\n${failed.join('\n')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
