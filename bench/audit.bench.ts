import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { TcpProxy } from '../test/support/tcp-proxy';
import { assetId, generateFleet } from './fleet-data';
import {
  type AssetCursor,
  bearerToken,
  benchArguments,
  CLIENT_CPU,
  countEvents,
  Lab,
  loadAverageText,
  machine,
  machineLine,
  measureDecisions,
  pinDriverToClientCpu,
  positiveOption,
  ROOT,
  ROUND_OPTIONS,
  SERVER_CPU,
  serverCpuSeconds,
  sqliteFleet,
  type Target,
  verifyAuditChains,
} from './lab';
import { type Answer, asRun, PacedClient, type PacedRequest, quantile, steadyStream } from './paced-load';
import { answersCheck, type Check, formatCheck, ratios, recordedCheck, reportFailedChecks, type SideResult, type Spread, silentRounds, spread } from './report';
import { combineRuns } from './wrk';
import { DECOMMISSIONS_PER_SECOND_BOUND, type Workload, WORKLOADS } from './workloads';

/*
 * `npm run bench:audit`: audited decisions (allowed decommissions and clearance-6 denials) against
 * SQLite, PostgreSQL on the same host, and PostgreSQL through a relay that delays every packet, one
 * instance and then two, in alternating rounds; then a steady stream of decommissions with and
 * without a flood of denials from many clients, each under its own limit. It speaks only HTTP to the
 * service, so it measures any write path. See docs/performance.md, "Audited decisions".
 */

const DECISIONS: Workload[] = [WORKLOADS.decommission, WORKLOADS.denied];
/** The issue's targets (issue 18). */
const TARGETS = { postgresOverSqlite: 0.5, relayedPerSecond: 400, twoInstancesOverOne: 1.7, floodP99Ratio: 2 };
/** A flood client sends at most this share of its limit, so timing jitter never takes it over. */
const FLOOD_PACE = 0.9;
/** Each of the steady stream's officers sends at most this many a second, well under the default request limit. */
const OFFICER_RATE = 5;
const ROUND_TRIP_SAMPLES = 20;

interface Options {
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  connections: number;
  /** Clients per instance of the relayed pair that shows scale-out with no instance short of CPU. */
  scaleConnections: number;
  /** The round trip the relay adds, half each way. */
  roundTripMs: number;
  floodClients: number;
  /** Each flood client's denial limit a minute (RATE_LIMIT_DENIALS_PER_MINUTE of the flood's instance). */
  floodLimit: number;
  steadyRate: number;
  floodRounds: number;
  floodSeconds: number;
}

function readOptions(): Options {
  const values = benchArguments({
    ...ROUND_OPTIONS,
    rtt: { type: 'string' },
    'scale-connections': { type: 'string' },
    'flood-clients': { type: 'string' },
    'flood-limit': { type: 'string' },
    'steady-rate': { type: 'string' },
    'flood-rounds': { type: 'string' },
    'flood-duration': { type: 'string' },
  });
  const positive = (name: keyof typeof values, full: number, quick: number) => positiveOption(values, name, values.quick ? quick : full);
  return {
    rounds: positive('rounds', 3, 2),
    seconds: positive('duration', 8, 3),
    warmUpSeconds: positive('warm-up', 2, 1),
    connections: positive('connections', 32, 32),
    scaleConnections: positive('scale-connections', 4, 4),
    roundTripMs: positive('rtt', 10, 10),
    floodClients: positive('flood-clients', 200, 200),
    floodLimit: positive('flood-limit', 30, 30),
    steadyRate: positive('steady-rate', 10, 10),
    floodRounds: positive('flood-rounds', 2, 1),
    floodSeconds: positive('flood-duration', 20, 8),
  };
}

/** A deployment measured at `connections` clients per instance; instances on one database share its assets. */
interface Setup {
  label: string;
  instances: Target[];
  connections: number;
}

interface SetupResult {
  setup: Setup;
  sides: Map<Workload, SideResult>;
  recorded: Map<Workload, number>;
  /** Each round's share of the servers' CPU its instances kept busy: near 1, they had no CPU to spare. */
  serverCpuBusy: Map<Workload, number[]>;
  /** Each round's busy share of each CPU, by anything: the servers' and PostgreSQL's on CPU 0, wrk's, this driver's, its relay's and PostgreSQL's on CPU 1. */
  cpuBusy: Map<Workload, [number, number][]>;
}

/** A CPU's time so far, busy and in all, from its line of /proc/stat. */
function cpuTicks(cpu: number): { busy: number; all: number } {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`cpu${cpu} `)) as string;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, all: busy + idle + iowait };
}

/** Each CPU's busy share between two readings of cpuTicks. */
const busyShare = (before: { busy: number; all: number }, after: { busy: number; all: number }) => (after.busy - before.busy) / (after.all - before.all);

/** CPU seconds of every instance together, which all run on the one server CPU. */
const instancesCpuSeconds = (instances: Target[]) => instances.reduce((sum, instance) => sum + serverCpuSeconds(instance), 0);

/** Each setup and workload warms up once, then the rounds go round the setups, so a noisy neighbour weighs on all alike. */
async function measureSetups(setups: Setup[], options: Options): Promise<SetupResult[]> {
  const results = setups.map((setup) => ({
    setup,
    sides: new Map(DECISIONS.map((workload) => [workload, { label: setup.label, rounds: [] }])),
    recorded: new Map(DECISIONS.map((workload) => [workload, 0])),
    serverCpuBusy: new Map(DECISIONS.map((workload) => [workload, [] as number[]])),
    cpuBusy: new Map(DECISIONS.map((workload) => [workload, [] as [number, number][]])),
  }));
  const runOnce = async (result: SetupResult, workload: Workload, seconds: number, warmUp: boolean) => {
    const cpuBefore = instancesCpuSeconds(result.setup.instances);
    const cpusBefore = [cpuTicks(SERVER_CPU), cpuTicks(CLIENT_CPU)];
    const { run, recorded } = await measureDecisions(result.setup.instances, workload, seconds, result.setup.connections);
    const side = result.sides.get(workload) as SideResult;
    if (warmUp) {
      side.warmUp = run;
    } else {
      side.rounds.push(run);
      result.serverCpuBusy.get(workload)?.push((instancesCpuSeconds(result.setup.instances) - cpuBefore) / seconds);
      result.cpuBusy.get(workload)?.push([busyShare(cpusBefore[0], cpuTicks(SERVER_CPU)), busyShare(cpusBefore[1], cpuTicks(CLIENT_CPU))]);
    }
    result.recorded.set(workload, (result.recorded.get(workload) ?? 0) + recorded);
  };
  for (const result of results) {
    for (const workload of DECISIONS) {
      await runOnce(result, workload, options.warmUpSeconds, true);
    }
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const result of results) {
      for (const workload of DECISIONS) {
        await runOnce(result, workload, options.seconds, false);
      }
    }
    console.log(`  round ${round + 1} of ${options.rounds} done, load average ${loadavg()[0].toFixed(2)}`);
  }
  return results;
}

interface FloodResult {
  steadyRate: number;
  floodClients: number;
  floodPerSecond: number;
  withoutFlood: { p50Ms: number; p99Ms: number; answers: number };
  withFlood: { p50Ms: number; p99Ms: number; answers: number };
  /** The flood's answers, by status. */
  floodStatuses: Record<string, number>;
  p99Ratio: number;
  checks: Check[];
}

/** Windows of the steady stream alone and beside the flood, alternating, on the flood's own instance. */
async function measureFlood(target: Target, options: Options): Promise<FloodResult> {
  const databaseUrl = target.databaseUrl as string;
  const url = target.server.url;
  const officer = bearerToken(7);
  const intruder = bearerToken(6);
  let steadySent = 0;
  const steadyRequest = (): PacedRequest => ({
    path: `/v1/assets/${assetId(target.assets.next++)}`,
    authorization: officer,
    forwardedFor: `127.2.0.${(steadySent++ % Math.ceil(options.steadyRate / OFFICER_RATE)) + 1}`,
  });
  const intervalMs = 60_000 / (options.floodLimit * FLOOD_PACE);
  const floodClients = Array.from(
    { length: options.floodClients },
    (_, index) =>
      new PacedClient(intervalMs, () => ({
        path: `/v1/assets/${assetId(index)}`,
        authorization: intruder,
        forwardedFor: `127.1.${Math.floor(index / 250)}.${(index % 250) + 1}`,
      })),
  );
  const steady: SideResult = { label: 'steady decommissions', rounds: [] };
  const flood: SideResult = { label: 'flood of denials', rounds: [] };
  const answers = { alone: [] as Answer[], flooded: [] as Answer[] };
  const before = { allowed: await countEvents(databaseUrl, 'allowed'), denied: await countEvents(databaseUrl, 'denied') };
  for (let round = 0; round < options.floodRounds; round++) {
    for (const flooded of [false, true]) {
      const start = performance.now();
      const end = start + options.floodSeconds * 1000;
      const [decommissions, ...floods] = await Promise.all([
        steadyStream(url, options.steadyRate, options.floodSeconds, steadyRequest),
        ...(flooded ? floodClients.map((client, index) => client.run(url, start + (index / options.floodClients) * intervalMs, end)) : []),
      ]);
      answers[flooded ? 'flooded' : 'alone'].push(...decommissions);
      steady.rounds.push(asRun(decommissions, options.floodSeconds));
      if (flooded) {
        flood.rounds.push(asRun(floods.flat(), options.floodSeconds));
      }
    }
    console.log(`  flood round ${round + 1} of ${options.floodRounds} done, load average ${loadavg()[0].toFixed(2)}`);
  }
  const recorded = { allowed: (await countEvents(databaseUrl, 'allowed')) - before.allowed, denied: (await countEvents(databaseUrl, 'denied')) - before.denied };
  const figures = (pooled: Answer[]) => {
    const answered = pooled.filter(({ status }) => status !== 0);
    return { p50Ms: quantile(answered, 0.5), p99Ms: quantile(answered, 0.99), answers: answered.length };
  };
  const withoutFlood = figures(answers.alone);
  const withFlood = figures(answers.flooded);
  const floodRun = combineRuns(flood.rounds);
  return {
    steadyRate: options.steadyRate,
    floodClients: options.floodClients,
    floodPerSecond: floodRun.requestsPerSecond / options.floodRounds,
    withoutFlood,
    withFlood,
    floodStatuses: floodRun.statuses,
    p99Ratio: withFlood.p99Ms / withoutFlood.p99Ms,
    checks: [
      answersCheck(WORKLOADS.decommission, steady),
      recordedCheck(WORKLOADS.decommission, steady, recorded.allowed),
      answersCheck(WORKLOADS.denied, flood),
      recordedCheck(WORKLOADS.denied, flood, recorded.denied),
    ],
  };
}

/** The median of `SELECT 1` round trips on one connection. */
async function roundTripMs(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT 1');
    const samples: number[] = [];
    for (let sample = 0; sample < ROUND_TRIP_SAMPLES; sample++) {
      const start = performance.now();
      await client.query('SELECT 1');
      samples.push(performance.now() - start);
    }
    return spread(samples).median;
  } finally {
    await client.end();
  }
}

/** A URL of the same database through the relay. */
function relayed(databaseUrl: string, proxy: TcpProxy): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.toString();
}

const medianOf = (side: SideResult, field: 'requestsPerSecond' | 'p99Ms') => spread(side.rounds.map((round) => round[field])).median;
const whole = (value: number) => Math.round(value).toLocaleString('en');
const spreadText = ({ min, median, max }: Spread) => `${median.toFixed(2)} (rounds ${min.toFixed(2)} to ${max.toFixed(2)})`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

const percent = (share: number) => `${Math.round(share * 100)}%`;

function formatSetups(results: SetupResult[]): string {
  const columns = ['decommissions/s', 'p99 ms', 'servers', 'CPU 0', 'CPU 1', 'denials/s', 'p99 ms', 'servers', 'CPU 0', 'CPU 1'];
  const widths = [16, 9, 9, 7, 7, 11, 9, 9, 7, 7];
  const line = (label: string, cells: string[]) => `  ${label.padEnd(60)}${cells.map((cell, index) => cell.padStart(widths[index])).join('')}`;
  const rows = results.map(({ setup, sides, serverCpuBusy, cpuBusy }) =>
    line(
      setup.label,
      DECISIONS.flatMap((workload) => {
        const side = sides.get(workload) as SideResult;
        const median = (shares: number[]) => percent(spread(shares).median);
        const cpus = cpuBusy.get(workload) ?? [];
        return silentRounds(side) > 0
          ? ['n/a', 'n/a', 'n/a', 'n/a', 'n/a']
          : [
              whole(medianOf(side, 'requestsPerSecond')),
              medianOf(side, 'p99Ms').toFixed(1),
              median(serverCpuBusy.get(workload) ?? []),
              median(cpus.map(([server]) => server)),
              median(cpus.map(([, client]) => client)),
            ];
      }),
    ),
  );
  return [line(`medians; busy shares: of CPU ${SERVER_CPU} by the servers, of each CPU by anything`, columns), ...rows].join('\n');
}

interface TargetFigure {
  target: string;
  workload: string;
  value: Spread;
  met: boolean;
}

/** The issue's targets, for decommissions and denials alike; a ratio is taken round by round. */
function targetFigures(results: SetupResult[]): TargetFigure[] {
  const [sqlite, local, relayedOne, relayedTwo, fewClientsOne, fewClientsTwo] = results;
  const figures: TargetFigure[] = [];
  for (const workload of DECISIONS) {
    const side = (result: SetupResult) => result.sides.get(workload) as SideResult;
    const measured = results.every((result) => silentRounds(side(result)) === 0);
    if (!measured) {
      continue;
    }
    const overSqlite = ratios(side(local).rounds, side(sqlite).rounds)?.requestsPerSecond as Spread;
    const perSecond = spread(side(relayedOne).rounds.map((round) => round.requestsPerSecond));
    const twoOverOne = ratios(side(relayedTwo).rounds, side(relayedOne).rounds)?.requestsPerSecond as Spread;
    const fewClientsTwoOverOne = ratios(side(fewClientsTwo).rounds, side(fewClientsOne).rounds)?.requestsPerSecond as Spread;
    figures.push(
      { target: `PostgreSQL same host / SQLite >= ${TARGETS.postgresOverSqlite}`, workload: workload.name, value: overSqlite, met: overSqlite.median >= TARGETS.postgresOverSqlite },
      { target: `relayed PostgreSQL, one instance >= ${TARGETS.relayedPerSecond}/s`, workload: workload.name, value: perSecond, met: perSecond.median >= TARGETS.relayedPerSecond },
      { target: `relayed, two instances / one >= ${TARGETS.twoInstancesOverOne}`, workload: workload.name, value: twoOverOne, met: twoOverOne.median >= TARGETS.twoInstancesOverOne },
      {
        target: `the same, ${fewClientsOne.setup.connections} clients an instance >= ${TARGETS.twoInstancesOverOne}`,
        workload: workload.name,
        value: fewClientsTwoOverOne,
        met: fewClientsTwoOverOne.median >= TARGETS.twoInstancesOverOne,
      },
    );
  }
  return figures;
}

function formatFlood(flood: FloodResult, options: Options): string {
  const perMinute = (options.floodLimit * FLOOD_PACE).toFixed(0);
  return [
    `  ${flood.steadyRate} decommissions/s; flood: ${flood.floodClients} clients at ${perMinute} denials a minute each (limit ${options.floodLimit}), ${whole(flood.floodPerSecond)} answered/s, statuses ${JSON.stringify(flood.floodStatuses)}`,
    `  steady decommissions without the flood: p50 ${flood.withoutFlood.p50Ms.toFixed(1)} ms, p99 ${flood.withoutFlood.p99Ms.toFixed(1)} ms over ${flood.withoutFlood.answers} answers`,
    `  steady decommissions with the flood:    p50 ${flood.withFlood.p50Ms.toFixed(1)} ms, p99 ${flood.withFlood.p99Ms.toFixed(1)} ms over ${flood.withFlood.answers} answers`,
    ...flood.checks.map((check) => `  ${formatCheck(check)}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const options = readOptions();
  // The relay within this driver shares wrk's CPU too.
  pinDriverToClientCpu();
  const startedAt = new Date();
  const about = machine();
  console.log(
    `${options.rounds} rounds of ${options.seconds} s per setup and workload after a ${options.warmUpSeconds} s warm-up, wrk -t1 -c${options.connections} per instance on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU}, PostgreSQL unpinned`,
  );
  console.log(machineLine(about));
  console.log('The service with NODE_ENV=production, rate limits off except on the flood instance; SQLite at its default synchronous=FULL, PostgreSQL at its defaults.\n');

  const lab = new Lab(mkdtempSync(join(tmpdir(), 'fleet-registry-audit-')));
  let proxy: TcpProxy | undefined;
  const checks: Check[] = [];
  let record: Record<string, unknown>;
  try {
    // Enough fresh assets for every decommission run: each answer through the relay waits at least one
    // round trip, so an instance answers at most `connections` per round trip.
    const runSeconds = options.warmUpSeconds + options.rounds * options.seconds;
    const relayBound = Math.ceil(((options.connections + options.scaleConnections) * 1000) / options.roundTripMs);
    const [sqliteUrl] = await sqliteFleet(lab.dir, { vessels: 0, assets: runSeconds * DECOMMISSIONS_PER_SECOND_BOUND + 1_000 }, ['audit-sqlite']);
    // One schema for every PostgreSQL setup, so the one chain verified at the end holds all their events.
    const postgresUrl = await lab.postgresDatabase();
    const localAssets = runSeconds * DECOMMISSIONS_PER_SECOND_BOUND;
    const relayedAssets = runSeconds * 3 * relayBound + options.floodRounds * 2 * options.floodSeconds * options.steadyRate;
    await generateFleet(postgresUrl, { vessels: 0, assets: localAssets + relayedAssets + 1_000 });
    const postgres = new URL(postgresUrl);
    proxy = await TcpProxy.start({ host: postgres.hostname, port: Number(postgres.port || 5432) }, { delayMs: options.roundTripMs / 2 });
    const throughRelay = relayed(postgresUrl, proxy);
    const roundTrips = { direct: await roundTripMs(postgresUrl), relayed: await roundTripMs(throughRelay) };
    console.log(`PostgreSQL round trip (median of ${ROUND_TRIP_SAMPLES} SELECT 1): ${roundTrips.direct.toFixed(2)} ms direct, ${roundTrips.relayed.toFixed(2)} ms through the relay\n`);

    const sqlite = await lab.startService('SQLite', sqliteUrl);
    const local = await lab.startService('PostgreSQL, same host', postgresUrl);
    const relayedCursor: AssetCursor = { next: localAssets };
    const relayedOptions = { serverUrl: throughRelay, assets: relayedCursor };
    const first = await lab.startService('PostgreSQL relayed, instance 1', postgresUrl, relayedOptions);
    const second = await lab.startService('PostgreSQL relayed, instance 2', postgresUrl, relayedOptions);
    const flooded = await lab.startService('PostgreSQL relayed, rate-limited instance', postgresUrl, {
      ...relayedOptions,
      env: { RATE_LIMIT_ENABLED: 'true', TRUST_PROXY: '1', RATE_LIMIT_DENIALS_PER_MINUTE: String(options.floodLimit) },
    });
    const relayLabel = `PostgreSQL, ${options.roundTripMs} ms relay`;
    const { connections, scaleConnections } = options;
    // At `connections` clients one instance can keep the servers' one CPU busy, and a second has none
    // left to add; at `scaleConnections` neither is short of CPU, so the pair shows what the write path
    // itself lets a second instance add.
    const setups: Setup[] = [
      { label: 'SQLite, one instance', instances: [sqlite], connections },
      { label: 'PostgreSQL on the same host, one instance', instances: [local], connections },
      { label: `${relayLabel}, one instance`, instances: [first], connections },
      { label: `${relayLabel}, two instances`, instances: [first, second], connections },
      { label: `${relayLabel}, one instance, ${scaleConnections} clients`, instances: [first], connections: scaleConnections },
      { label: `${relayLabel}, two instances, ${scaleConnections} clients each`, instances: [first, second], connections: scaleConnections },
    ];
    console.log('audited decisions');
    const results = await measureSetups(setups, options);
    console.log(`\n${formatSetups(results)}`);
    for (const { sides, recorded } of results) {
      for (const workload of DECISIONS) {
        const side = sides.get(workload) as SideResult;
        checks.push(answersCheck(workload, side), recordedCheck(workload, side, recorded.get(workload) ?? 0));
      }
    }
    for (const check of checks) {
      console.log(`  ${formatCheck(check)}`);
    }

    console.log(`\ndecommissions beside a flood of denials (${relayLabel}, one rate-limited instance, TRUST_PROXY=1, a distinct X-Forwarded-For per client)`);
    const flood = await measureFlood(flooded, options);
    console.log(formatFlood(flood, options));
    checks.push(...flood.checks);

    const figures = targetFigures(results);
    console.log('\ntargets (issue 18), median over the rounds');
    for (const { target, workload, value, met } of figures) {
      console.log(`  ${target.padEnd(52)} ${workload.padEnd(36)} ${spreadText(value)}: ${verdict(met)}`);
    }
    const floodMet = flood.p99Ratio <= TARGETS.floodP99Ratio;
    console.log(`  ${`flood p99 / no-flood p99 <= ${TARGETS.floodP99Ratio}`.padEnd(52)} ${'steady decommissions'.padEnd(36)} ${flood.p99Ratio.toFixed(2)}: ${verdict(floodMet)}`);

    await lab.stopServers();
    const chains = await verifyAuditChains(lab);
    console.log('\naudit chains after the run');
    for (const check of chains) {
      console.log(`  ${formatCheck(check)}`);
    }
    checks.push(...chains);
    record = {
      round_trip_ms: roundTrips,
      setups: results.map(({ setup, sides, recorded, serverCpuBusy, cpuBusy }) => ({
        label: setup.label,
        instances: setup.instances.length,
        connections: setup.connections,
        workloads: DECISIONS.map((workload) => ({
          workload: workload.name,
          ...sides.get(workload),
          recorded: recorded.get(workload),
          server_cpu_busy: serverCpuBusy.get(workload),
          cpu_busy: cpuBusy.get(workload),
        })),
      })),
      targets: [...figures, { target: `flood p99 / no-flood p99 <= ${TARGETS.floodP99Ratio}`, workload: 'steady decommissions', value: flood.p99Ratio, met: floodMet }],
      flood,
    };
  } finally {
    await proxy?.cut();
    await lab.tearDown();
  }

  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `audit-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  const finishedAt = new Date();
  writeFileSync(file, `${JSON.stringify({ started_at: startedAt, finished_at: finishedAt, machine: { ...about, load_average_at_end: loadavg() }, options, ...record, checks }, null, 2)}\n`);
  console.log(`\nWritten to ${file} after ${Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000)} s, load average ${loadAverageText()}`);
  reportFailedChecks(checks);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
