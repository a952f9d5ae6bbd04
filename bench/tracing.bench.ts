import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Span } from 'nestjs-otel';
import { startOtlpReceiver } from '../test/support/otlp-receiver';
import { type FleetSize, generateFleet } from './fleet-data';
import { CLIENT_CPU, Lab, machine, machineLine, measureDecisions, pinDriverToClientCpu, positiveOption, ROUND_OPTIONS, SERVER_CPU, serverCpuSeconds, sqliteFleet, type Target } from './lab';
import { answersCheck, type Check, type ComparisonResult, formatComparison, ratios, recordedCheck, reportFailedChecks, type SideResult } from './report';
import { BASE_VESSELS, DECOMMISSIONS_PER_SECOND_BOUND, WORKLOADS } from './workloads';

/*
 * `npm run bench:tracing`: decommission throughput with OpenTelemetry traces on, every span exported
 * over OTLP/HTTP (the SDK's default protobuf) to a receiver in this driver, against the same service
 * with traces off, in alternating rounds after a warm-up of each; servers on one CPU, wrk, this driver
 * and the receiver on the other. Off, the service does not load the SDK: what stays in its path is
 * nestjs-otel's @Span on each guard and on the audit append, measured here on their own. Issue 20's
 * target: on, at most 15% fewer decommissions a second than off. See docs/performance.md.
 */
const TARGET_RATIO = 0.85;
/** The @Span-wrapped calls a decommission makes: five global guards and the audit append. */
const SPANS_PER_DECOMMISSION = 6;

class SpanWrapped {
  @Span()
  traced(): boolean {
    return true;
  }

  plain(): boolean {
    return true;
  }
}

/** What a no-op @Span adds to a call with no SDK registered, in µs: the minimum of several rounds. */
function noopSpanMicros(): number {
  const probe = new SpanWrapped();
  const iterations = 200_000;
  const micros = (call: () => boolean) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) call();
    return Number(process.hrtime.bigint() - start) / 1_000 / iterations;
  };
  const rounds = Array.from({ length: 7 }, () => micros(() => probe.traced()) - micros(() => probe.plain()));
  return Math.min(...rounds);
}

async function postgresFleets(lab: Lab, fleet: FleetSize): Promise<string[]> {
  const urls = [await lab.postgresDatabase(), await lab.postgresDatabase()];
  for (const url of urls) {
    await generateFleet(url, fleet);
  }
  return urls;
}

interface Measured {
  result: ComparisonResult;
  /** Server CPU per answer over all rounds, in µs: on, then off. */
  cpuMicros: [number, number];
}

/** Warm-up of each side, then rounds on, off, on, off ...; each side's answers and audit events checked, and its server CPU per answer read. */
async function compareSides(on: Target, off: Target, rounds: number, seconds: number, warmUp: number, connections: number): Promise<Measured> {
  const workload = WORKLOADS.decommission;
  const sides = [on, off].map((target) => {
    const side: SideResult = { label: target.label, rounds: [] };
    return { target, side, recorded: 0, cpuSeconds: 0 };
  });
  for (const { target, side } of sides) {
    side.warmUp = (await measureDecisions([target], workload, warmUp, connections)).run;
  }
  for (let round = 0; round < rounds; round++) {
    for (const measured of sides) {
      const cpuBefore = serverCpuSeconds(measured.target);
      const { run, recorded } = await measureDecisions([measured.target], workload, seconds, connections);
      measured.cpuSeconds += serverCpuSeconds(measured.target) - cpuBefore;
      measured.side.rounds.push(run);
      measured.recorded += recorded;
    }
  }
  const [a, b] = sides;
  const cpuMicros = ({ side, cpuSeconds }: (typeof sides)[number]) => (1e6 * cpuSeconds) / side.rounds.reduce((sum, round) => sum + round.answers, 0);
  return {
    result: {
      suite: 'tracing',
      workload: workload.name,
      request: 'DELETE /v1/assets/<a fresh asset> with a clearance 7 token',
      a: a.side,
      b: b.side,
      ratios: ratios(a.side.rounds, b.side.rounds),
      checks: sides.flatMap(({ side, recorded }) => [answersCheck(workload, side), recordedCheck(workload, side, recorded)]),
      notes: [],
    },
    cpuMicros: [cpuMicros(a), cpuMicros(b)],
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { ...ROUND_OPTIONS, postgres: { type: 'boolean', default: false } } });
  const rounds = positiveOption(values, 'rounds', values.quick ? 3 : 5);
  const seconds = positiveOption(values, 'duration', values.quick ? 2 : 10);
  const warmUp = positiveOption(values, 'warm-up', values.quick ? 1 : 5);
  const connections = positiveOption(values, 'connections', 32);
  pinDriverToClientCpu();
  const spanMicros = noopSpanMicros();
  console.log(`${rounds} rounds of ${seconds} s per side after a ${warmUp} s warm-up, wrk -t1 -c${connections} on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU}`);
  console.log(`${machineLine(machine())}; ${values.postgres ? 'PostgreSQL' : 'SQLite'}, NODE_ENV=production, RATE_LIMIT_ENABLED=false\n`);

  const receiver = await startOtlpReceiver();
  const lab = new Lab(mkdtempSync(join(tmpdir(), 'fleet-registry-tracing-')));
  const checks: Check[] = [];
  try {
    const fleet = { vessels: BASE_VESSELS, assets: (warmUp + rounds * seconds) * DECOMMISSIONS_PER_SECOND_BOUND + 1_000 };
    const [onUrl, offUrl] = values.postgres ? await postgresFleets(lab, fleet) : await sqliteFleet(lab.dir, fleet, ['traces-on', 'traces-off']);
    const on = await lab.startService('traces on, exported', onUrl, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
    const off = await lab.startService('traces off', offUrl);
    const { result, cpuMicros } = await compareSides(on, off, rounds, seconds, warmUp, connections);
    const ratio = result.ratios?.requestsPerSecond.median ?? 0;
    result.checks.push({ ok: receiver.exports() > 0, message: `the receiver got ${receiver.exports()} exports of spans` });
    console.log(formatComparison(result));
    checks.push(...result.checks);
    const [onMicros, offMicros] = cpuMicros;
    console.log(`\ntraces on / off: ${ratio.toFixed(2)}x the decommissions a second (median of the rounds), target at least ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}`);
    console.log(`server CPU per answer: on ${onMicros.toFixed(0)} µs, off ${offMicros.toFixed(0)} µs (off / on ${(offMicros / onMicros).toFixed(2)}x)`);
    console.log(
      `traces off: the ${SPANS_PER_DECOMMISSION} no-op @Span wrappers of a decommission cost ${(SPANS_PER_DECOMMISSION * spanMicros).toFixed(2)} µs, ` +
        `${((100 * SPANS_PER_DECOMMISSION * spanMicros) / offMicros).toFixed(2)}% of its server CPU`,
    );
  } finally {
    await lab.tearDown();
    await receiver.close();
  }
  reportFailedChecks(checks);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
