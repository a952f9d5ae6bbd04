import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AuditOutcome } from '../src/database';
import { assetId, generateFleet } from './fleet-data';
import { bearerToken, benchArguments, CLIENT_CPU, countEvents, Lab, machine, positiveOption, ROOT, ROUND_OPTIONS, SECRET, SERVER_CPU, serverCpuSeconds, sqliteFleet, type Target, verifyAuditChains } from './lab';
import {
  answersCheck,
  type Check,
  type ComparisonResult,
  crossNotes,
  formatCheck,
  formatComparison,
  ratios,
  recordedCheck,
  reportFailedChecks,
  type SideResult,
  silentRounds,
} from './report';
import { runWrk, type WrkResult } from './wrk';
import { BASE_VESSELS, BATCH_ASSETS_PER_SECOND_BOUND, DECOMMISSIONS_PER_SECOND_BOUND, LISTINGS, RETRIES, type Workload, WORKLOADS, WRITES } from './workloads';

/*
 * `npm run bench`: the compiled service against yardsticks on the same machine, side by side, in
 * alternating rounds (A B A B ...) after a warm-up of each, with the servers pinned to one CPU and
 * wrk (and this driver) to another. See docs/performance.md for the method and the targets.
 */

/** Below this many answers in a round, its p99 is hardly more than its maximum. */
const FEW_ANSWERS = 100;

interface Options {
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  connections: number;
  threads: number;
  assets: number;
  /** Adds the scaling suite: the listing at this many vessels against the same at BASE_VESSELS. */
  largeFleet?: number;
  /** Adds the before-and-after suite: the service against another build of it (its dist/main.js) on the user-facing workloads. */
  baseline?: string;
  postgres: boolean;
  /** Only the workloads whose name contains this. */
  only: string;
  /** Each server writes a V8 CPU profile of the whole run next to the results. */
  cpuProfile: boolean;
}

function readOptions(): Options {
  const values = benchArguments({
    ...ROUND_OPTIONS,
    vessels: { type: 'string' },
    postgres: { type: 'boolean', default: false },
    threads: { type: 'string' },
    assets: { type: 'string' },
    only: { type: 'string', default: '' },
    baseline: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
  });
  const positive = (name: keyof typeof values, fallback: number) => positiveOption(values, name, fallback);
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
    // Every write workload takes a fresh asset each request (a batch, a hundred); each side has its own copy of the fleet.
    assets: positive('assets', ((WRITES.length + 1) * DECOMMISSIONS_PER_SECOND_BOUND + BATCH_ASSETS_PER_SECOND_BOUND) * (warmUpSeconds + rounds * seconds) + 1_000),
    largeFleet: values.vessels === undefined ? undefined : positive('vessels', BASE_VESSELS),
    postgres: values.postgres,
    baseline: values.baseline,
    only: values.only,
    cpuProfile: values['cpu-prof'],
  };
}



interface Comparison {
  suite: string;
  workload: Workload;
  a: Target;
  b: Target;
}

const tokens = new Map([6, 7].map((clearance) => [clearance, bearerToken(clearance)]));

/** Listings take any valid token: clearance 7's. */
function authorization(workload: Workload): string | undefined {
  return workload.public ? undefined : tokens.get(workload.requests.method === 'DELETE' ? workload.requests.clearance : 7);
}

function firstRequest(workload: Workload, target: Target): string {
  const { requests } = workload;
  if (requests.method === 'GET') {
    return `GET ${requests.paths(target.vessels)[0]}`;
  }
  if (requests.method === 'POST') {
    return `POST /v1/assets/decommissions of ${requests.batch} assets from ${assetId(target.assets.next)}`;
  }
  return `DELETE /v1/assets/${assetId(target.assets.next)} with a clearance ${requests.clearance} token${requests.keyed ? ' and an Idempotency-Key' : ''}`;
}

const DECISION_BODY = { reason: 'Benchmark probe', authorized_by: 'Bench Officer' };

/** The next fresh assets of the target, `count` of them. */
function takeAssets(target: Target, count: number): string[] {
  const first = target.assets.next;
  target.assets.next += count;
  return Array.from({ length: count }, (_, index) => assetId(first + index));
}

/** One request outside the measured runs: does the side do this work, and answer as expected? */
async function probe(workload: Workload, target: Target): Promise<{ status: number; answer: unknown }> {
  const { requests } = workload;
  const token = authorization(workload);
  const headers = { 'Content-Type': 'application/json', ...(token ? { Authorization: token } : {}) };
  let response: globalThis.Response;
  if (requests.method === 'GET') {
    response = await fetch(`${target.server.url}${requests.paths(target.vessels)[0]}`, { headers });
  } else if (requests.method === 'POST') {
    response = await fetch(`${target.server.url}/v1/assets/decommissions`, { method: 'POST', headers, body: JSON.stringify({ asset_ids: takeAssets(target, requests.batch), ...DECISION_BODY }) });
  } else {
    const [asset] = takeAssets(target, 1);
    const key = requests.keyed ? { 'Idempotency-Key': `bench-probe-${asset}` } : {};
    response = await fetch(`${target.server.url}/v1/assets/${asset}`, { method: 'DELETE', headers: { ...headers, ...key }, body: JSON.stringify(DECISION_BODY) });
  }
  return { status: response.status, answer: await response.json() };
}

/** What follows wrk's `--` (bench/wrk-workload.lua): the paths, or where the run's fresh assets start. */
function wrkWorkload({ requests }: Workload, target: Target, options: Options): string[] {
  if (requests.method === 'GET') {
    return ['get', ...requests.paths(target.vessels)];
  }
  const fresh = [String(target.assets.next), String(options.threads)];
  return requests.method === 'POST' ? ['batch', ...fresh, String(requests.batch)] : ['decommission', ...fresh, ...(requests.keyed ? ['keyed'] : [])];
}

async function measure(workload: Workload, target: Target, seconds: number, options: Options): Promise<WrkResult> {
  const { requests } = workload;
  const cpuBefore = serverCpuSeconds(target);
  const result = await runWrk({
    url: target.server.url,
    authorization: authorization(workload),
    seconds,
    connections: options.connections,
    threads: options.threads,
    cpu: CLIENT_CPU,
    workload: wrkWorkload(workload, target, options),
  });
  if (requests.method !== 'GET') {
    target.assets.next += result.mostSentByAThread * options.threads * (workload.perAnswer ?? 1);
  }
  return { ...result, cpuUsPerAnswer: ((serverCpuSeconds(target) - cpuBefore) * 1e6) / Math.max(1, result.answers) };
}

/** A round without answers has no figure, which fails the run; one of few answers has a p99 close to its slowest. */
function addRoundSizeFindings(side: SideResult, result: ComparisonResult): void {
  const silent = silentRounds(side);
  const thin = side.rounds.filter((round) => round.answers > 0 && round.answers < FEW_ANSWERS).length;
  if (silent > 0) {
    result.checks.push({ ok: false, message: `${side.label}: no answer within ${silent} of its rounds, so no figure: lengthen --duration` });
  }
  if (thin > 0) {
    result.notes.push(`${side.label}: ${thin} of its rounds got fewer than ${FEW_ANSWERS} answers, whose p99 is about their slowest`);
  }
}

interface Side {
  target: Target;
  side: SideResult;
}

/**
 * One request to each side before the runs. A side that lacks work the service may not do yet is
 * marked n/a; any other wrong answer fails a check, as do two different pages of the same fleet.
 */
async function probeSides(workload: Workload, sides: Side[]): Promise<Check[]> {
  const checks: Check[] = [];
  const answers: unknown[] = [];
  for (const { target, side } of sides) {
    const { status, answer } = await probe(workload, target);
    answers.push(answer);
    if (status === workload.status && (workload.supportedBy?.(answer) ?? true)) {
      continue;
    }
    const problem = `answered ${status} ${JSON.stringify(answer).slice(0, 160)}`;
    if (workload.supportedBy) {
      side.notApplicable = problem;
    } else {
      checks.push({ ok: false, message: `${side.label} ${problem}` });
    }
  }
  const [a, b] = sides;
  if (workload.requests.method === 'GET' && !workload.public && a.target.vessels === b.target.vessels && !a.side.notApplicable && !b.side.notApplicable) {
    const page = (answer: unknown) => {
      const { vessels, total_count } = (answer as { data?: { vessels?: unknown; total_count?: unknown } }).data ?? {};
      return JSON.stringify({ vessels, total_count });
    };
    const same = page(answers[0]) === page(answers[1]);
    checks.push({ ok: same, message: same ? 'both sides answer the same page and total_count' : 'the two sides answer different pages or total_count' });
  }
  return checks;
}

/** Probes, a warm-up of each side, then the rounds A B A B ..., then the checks. */
async function compare({ suite, workload, a, b }: Comparison, options: Options): Promise<ComparisonResult> {
  const result: ComparisonResult = {
    suite,
    workload: workload.name,
    request: firstRequest(workload, a),
    a: { label: a.label, rounds: [] },
    b: { label: b.label, rounds: [] },
    checks: [],
    notes: [],
    perAnswer: workload.perAnswer,
  };
  const sides: Side[] = [
    { target: a, side: result.a },
    { target: b, side: result.b },
  ];
  result.checks.push(...(await probeSides(workload, sides)));
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
    result.checks.push(recordedCheck(workload, side, recorded));
  }
  for (const { side } of measured) {
    addRoundSizeFindings(side, result);
  }
  if (measured.length === 2 && measured.every(({ side }) => silentRounds(side) === 0)) {
    result.ratios = ratios(result.a.rounds, result.b.rounds);
  }
  return result;
}


/**
 * The baseline build's own copy of the fleet, migrated by its own migrator: it refuses a database that
 * holds migrations it does not know, as this build's would.
 */
async function baselineFleet(lab: Lab, baseline: string, fleet: { vessels: number; assets: number }): Promise<string> {
  const url = `sqlite:${join(lab.dir, 'baseline.sqlite')}`;
  execFileSync(process.execPath, [join(dirname(baseline), 'cli', 'migrate.js')], { cwd: lab.dir, env: { ...process.env, DATABASE_URL: url }, stdio: 'ignore' });
  await generateFleet(url, fleet, { migrate: false });
  return url;
}

async function runComparisons(lab: Lab, options: Options): Promise<ComparisonResult[]> {
  const fleet = { vessels: BASE_VESSELS, assets: options.assets };
  const copies = ['service', 'bare', ...(options.baseline ? ['service-beside-baseline'] : []), ...(options.postgres ? ['service-beside-postgres'] : [])];
  const urls = await sqliteFleet(lab.dir, fleet, copies);
  const [serviceUrl, bareUrl] = urls;
  const copyUrl = (name: string) => urls[copies.indexOf(name)];
  const service = await lab.startService('service', serviceUrl);
  const bare = await lab.start('bare node:http', { script: join(__dirname, 'bare-server.js'), env: { DATABASE_URL: bareUrl, JWT_SECRET: SECRET } }, { databaseUrl: bareUrl });
  const bareNest = await lab.start('bare Nest 12 on Express', { script: join(__dirname, 'bare-nest.js') });
  const comparisons: Comparison[] = [
    ...[...LISTINGS, ...WRITES, ...RETRIES].map((workload) => ({ suite: `SQLite, ${BASE_VESSELS.toLocaleString('en')} vessels`, workload, a: service, b: bare })),
    { suite: 'pipeline', workload: WORKLOADS.health, a: service, b: bareNest },
  ];
  if (options.baseline) {
    // A service started as fresh as the baseline, on the same data: by now the first has answered every workload above,
    // hundreds of thousands of decisions among them, which the baseline's side would be read against.
    const fresh = await lab.startService('service (fresh)', copyUrl('service-beside-baseline'));
    const baseline = await lab.startService('the baseline build', await baselineFleet(lab, options.baseline, fleet), {
      script: options.baseline,
      verifier: join(dirname(options.baseline), 'cli', 'audit-verify.js'),
    });
    for (const workload of [...LISTINGS, ...WRITES]) {
      comparisons.push({ suite: 'against the baseline build', workload, a: fresh, b: baseline });
    }
  }
  if (options.largeFleet) {
    const vessels = options.largeFleet;
    const [largeUrl] = await sqliteFleet(lab.dir, { vessels, assets: 0 }, ['service-large']);
    const large = await lab.startService(`service, ${vessels.toLocaleString('en')} vessels`, largeUrl, { vessels });
    const small = { ...service, label: `service, ${BASE_VESSELS.toLocaleString('en')} vessels` };
    for (const workload of [WORKLOADS.firstTenPages, WORKLOADS.cursorPages]) {
      comparisons.push({ suite: 'scaling', workload, a: large, b: small });
    }
  }
  if (options.postgres) {
    const postgresUrl = await lab.postgresDatabase();
    await generateFleet(postgresUrl, fleet);
    const onPostgres = await lab.startService('service on PostgreSQL', postgresUrl);
    const onSqlite = await lab.startService('service on SQLite', copyUrl('service-beside-postgres'));
    for (const workload of [...LISTINGS, ...WRITES, ...RETRIES]) {
      comparisons.push({ suite: 'PostgreSQL', workload, a: onPostgres, b: onSqlite });
    }
  }
  const results: ComparisonResult[] = [];
  for (const comparison of comparisons.filter(({ workload }) => workload.name.includes(options.only))) {
    const result = await compare(comparison, options);
    const other = results.find(({ suite, workload }) => suite === comparison.suite && workload === comparison.workload.alsoAgainst?.name);
    if (other) {
      result.notes.push(...crossNotes(result, other));
    }
    results.push(result);
    console.log(`${formatComparison(result)}\n`);
  }
  return results;
}

async function main(): Promise<void> {
  const options = readOptions();
  // This driver shares wrk's CPU, so the servers' CPU runs nothing but the server under test.
  execFileSync('taskset', ['-a', '-p', '-c', String(CLIENT_CPU), String(process.pid)], { stdio: 'ignore' });
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultsDir = join(ROOT, 'bench', 'results');
  const about = machine();
  console.log(
    `${options.rounds} rounds of ${options.seconds} s per side after a ${options.warmUpSeconds} s warm-up, wrk -t${options.threads} -c${options.connections} on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU}`,
  );
  console.log(`${String(about.cpus)} × ${String(about.cpu)}, Node ${process.version}, load average ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
  console.log('Both SQLite sides at synchronous=FULL in WAL mode; the service with RATE_LIMIT_ENABLED=false, NODE_ENV=production.\n');

  const lab = new Lab(mkdtempSync(join(tmpdir(), 'fleet-registry-compare-')), options.cpuProfile ? join(resultsDir, `${stamp}-profiles`) : undefined);
  let results: ComparisonResult[];
  let chains: Check[];
  try {
    results = await runComparisons(lab, options);
    await lab.stopServers();
    chains = await verifyAuditChains(lab);
  } finally {
    await lab.tearDown();
  }
  console.log('audit chains after the run');
  for (const check of chains) {
    console.log(`  ${formatCheck(check)}`);
  }

  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${stamp}.json`);
  const record = { started_at: startedAt, finished_at: new Date(), machine: { ...about, load_average_at_end: loadavg() }, options, results, audit_chains: chains };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  const seconds = Math.round((Date.now() - startedAt.getTime()) / 1000);
  console.log(`\nWritten to ${file} after ${seconds} s${options.cpuProfile ? `, profiles in ${resultsDir}/${stamp}-profiles` : ''}`);
  reportFailedChecks([...results.flatMap((result) => result.checks.map((check) => ({ ...check, message: `${result.workload}: ${check.message}` }))), ...chains]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
