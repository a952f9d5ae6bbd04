import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from '../test/support/wait';
import { generateFleet } from './fleet-data';
import { bearerToken, benchArguments, Lab, loadAverageText, machine, machineLine, measureDecisions, pacedDecommissions, pinDriverToClientCpu, positiveOption, ROUND_OPTIONS, serverCpuSeconds, sqliteFleet, type Target } from './lab';
import { asRun, nearestRank } from './paced-load';
import { answersCheck, type Check, formatCheck, ratios, reportFailedChecks, type SideResult, type Spread, spread } from './report';
import { DECOMMISSIONS_PER_SECOND_BOUND, WORKLOADS } from './workloads';

/*
 * `npm run bench:delivery`: issue 34's figures, over HTTP against a real service process (SQLite,
 * NODE_ENV=production) on the servers' CPU; the receivers run in this driver, on the client CPU.
 * Throughput: a backlog of events already in the trail, then subscriptions created from its first
 * event; events a second delivered, to a receiver that answers at once and to one that takes 50 ms,
 * with one and with ten subscriptions. Lag: decommissions paced at --rate a second with one
 * subscription; each event's time from the decommission's answer to its arrival. Cost: wrk
 * decommissions with no subscription and with ten, in alternating rounds of one run. Beside each rate,
 * the server's CPU per delivered event (its CPU time over the events), which a machine busy with other
 * work disturbs less than a rate. --postgres runs the service on PostgreSQL (TEST_DATABASE_URL, by
 * default the local server) instead; --profile DIR writes the server's CPU profile there when it stops.
 * Exit code 1 when a check fails; the targets are printed, not enforced.
 */

const TARGETS = { decisionsRatio: 0.9, lagP99Ms: 1_000 };
const DECOMMISSION = WORKLOADS.decommission;
/** How long the server is left after a backlog's decisions before the deliveries' CPU is counted. */
const SETTLE_MS = 1_000;
/** How long the receivers may take to receive what was sent before the driver gives up. */
const DELIVERY_LIMIT_MS = 120_000;

interface Options {
  rounds: number;
  seconds: number;
  warmUpSeconds: number;
  connections: number;
  rate: number;
  pacedSeconds: number;
  backlog: number;
  slowBacklog: number;
  postgres: boolean;
  profileDir?: string;
}

function readOptions(): Options {
  const values = benchArguments({
    ...ROUND_OPTIONS,
    rate: { type: 'string' },
    'paced-duration': { type: 'string' },
    backlog: { type: 'string' },
    'slow-backlog': { type: 'string' },
    postgres: { type: 'boolean', default: false },
    profile: { type: 'string' },
  });
  const positive = (name: keyof typeof values, full: number, quick: number) => positiveOption(values, name, values.quick ? quick : full);
  return {
    rounds: positive('rounds', 3, 2),
    seconds: positive('duration', 8, 3),
    warmUpSeconds: positive('warm-up', 2, 1),
    connections: positive('connections', 32, 32),
    rate: positive('rate', 500, 500),
    pacedSeconds: positive('paced-duration', 10, 4),
    backlog: positive('backlog', 2_000, 500),
    slowBacklog: positive('slow-backlog', 100, 40),
    postgres: values.postgres,
    profileDir: values.profile,
  };
}

/** A webhook receiver: answers 204 after `delayMs`, and notes when each event (by webhook-id) first arrived, and its asset. */
class Receiver {
  readonly arrivals = new Map<string, { at: number; assetId: string | null }>();
  private server?: Server;

  constructor(private readonly delayMs: number) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const id = String(request.headers['webhook-id']);
        if (!this.arrivals.has(id)) {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { asset_id: string | null } };
          this.arrivals.set(id, { at: performance.now(), assetId: body.data.asset_id });
        }
        // At once, not through setTimeout(0): a timer's turn is a millisecond or more, which would be most of a delivery's time.
        if (this.delayMs === 0) {
          response.writeHead(204).end();
        } else {
          setTimeout(() => response.writeHead(204).end(), this.delayMs);
        }
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => (this.server as Server).listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

const admin = bearerToken(9, 'bench-webhook-admin');

async function api(target: Target, method: string, path: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }> {
  const response = await fetch(`${target.server.url}${path}`, {
    method,
    headers: { Authorization: admin, 'Content-Type': 'application/json', 'X-Forwarded-For': '127.0.0.1' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, data: text ? ((JSON.parse(text) as { data: Record<string, unknown> }).data ?? {}) : {} };
}

async function subscribe(target: Target, url: string, start: string | number): Promise<string> {
  const { status, data } = await api(target, 'POST', '/v1/webhooks', { url, description: 'bench', start });
  if (status !== 201) {
    throw new Error(`POST /v1/webhooks answered ${status}`);
  }
  return data.id as string;
}

const unsubscribe = (target: Target, ids: string[]) => Promise.all(ids.map((id) => api(target, 'DELETE', `/v1/webhooks/${id}`)));

async function newestEventId(target: Target): Promise<number> {
  const response = await fetch(`${target.server.url}/v1/audit/events?limit=1`, { headers: { Authorization: bearerToken(7), 'X-Forwarded-For': '127.0.0.1' } });
  const body = (await response.json()) as { data: { events: { id: number }[] } };
  return body.data.events[0]?.id ?? 0;
}

const received = (receivers: Receiver[], events: number) =>
  waitUntil(() => receivers.every((receiver) => receiver.arrivals.size >= events), 'undelivered', DELIVERY_LIMIT_MS).then(
    () => true,
    () => false,
  );

interface ThroughputRow {
  label: string;
  eventsPerSecond: number;
  /** The server's CPU time over the events delivered, from the subscriptions' creation to the last arrival. */
  cpuMsPerEvent: number;
  checks: Check[];
}

/** A backlog of `events` in the trail, then `subscriptions` subscriptions from its first event; events a second delivered across them. */
async function measureThroughput(target: Target, delayMs: number, subscriptions: number, events: number): Promise<ThroughputRow> {
  const label = `${subscriptions} subscription${subscriptions > 1 ? 's' : ''}, receiver ${delayMs === 0 ? 'answering at once' : `taking ${delayMs} ms`}`;
  const first = (await newestEventId(target)) + 1;
  const answers = await pacedDecommissions(target, 200, events / 200);
  // What the decisions leave the server to do after their answers is not counted as delivery's CPU.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const receivers = Array.from({ length: subscriptions }, () => new Receiver(delayMs));
  const urls = await Promise.all(receivers.map((receiver) => receiver.start()));
  const started = performance.now();
  const cpuBefore = serverCpuSeconds(target);
  const ids = await Promise.all(urls.map((url) => subscribe(target, url, first)));
  try {
    const all = await received(receivers, events);
    const cpuSeconds = serverCpuSeconds(target) - cpuBefore;
    const seconds = (Math.max(...receivers.flatMap((receiver) => [...receiver.arrivals.values()].map(({ at }) => at))) - started) / 1000;
    const delivered = receivers.reduce((sum, receiver) => sum + Math.min(receiver.arrivals.size, events), 0);
    return {
      label,
      eventsPerSecond: delivered / seconds,
      cpuMsPerEvent: (cpuSeconds * 1000) / delivered,
      checks: [answersCheck(DECOMMISSION, { label: 'backlog decommissions', rounds: [asRun(answers, events / 200)] }), { ok: all, message: `${label}: every receiver got all ${events} events` }],
    };
  } finally {
    await unsubscribe(target, ids);
    await Promise.all(receivers.map((receiver) => receiver.stop()));
  }
}

interface LagResult {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  checks: Check[];
}

/** One subscription; decommissions paced at `rate`; each event's time from the decommission's answer to its arrival, matched by asset. */
async function measureLag(target: Target, options: Options): Promise<LagResult> {
  const receiver = new Receiver(0);
  const id = await subscribe(target, await receiver.start(), 'now');
  const sent: string[] = [];
  try {
    // One event through first: the lag measured is the running feed's, not its start.
    await pacedDecommissions(target, 1, 1);
    await received([receiver], 1);
    receiver.arrivals.clear();
    const answers = await pacedDecommissions(target, options.rate, options.pacedSeconds, sent);
    const allowed = answers.flatMap((answer, index) => (answer.status === DECOMMISSION.status ? [{ asset: sent[index], answeredAt: answer.answeredAt }] : []));
    const all = await received([receiver], allowed.length);
    const arrivals = new Map([...receiver.arrivals.values()].map(({ at, assetId: asset }) => [asset, at]));
    const delays = allowed.flatMap(({ asset, answeredAt }) => {
      const at = arrivals.get(asset);
      return at === undefined ? [] : [Math.max(0, at - answeredAt)];
    });
    return {
      events: delays.length,
      p50Ms: nearestRank(delays, 0.5),
      p99Ms: nearestRank(delays, 0.99),
      maxMs: nearestRank(delays, 1),
      checks: [
        answersCheck(DECOMMISSION, { label: 'paced decommissions', rounds: [asRun(answers, options.pacedSeconds)] }),
        { ok: all && delays.length === allowed.length, message: `${delays.length} of ${allowed.length} paced decommissions delivered` },
      ],
    };
  } finally {
    await unsubscribe(target, [id]);
    await receiver.stop();
  }
}

/** A round with ten subscriptions: the part of its events each receiver had when the run ended, and how long after it the last arrived. */
interface CatchUp {
  deliveredInRun: number;
  seconds: number;
}

interface CostResult {
  without: SideResult;
  with: SideResult;
  catchUp: CatchUp[];
  ratio: Spread;
  checks: Check[];
}

/** wrk decommissions with no subscription and with ten (receivers answering at once), a warm-up each, then alternating rounds. */
async function measureCost(target: Target, options: Options): Promise<CostResult> {
  const without: SideResult = { label: 'decommissions, no subscription', rounds: [] };
  const withTen: SideResult = { label: 'decommissions, 10 subscriptions', rounds: [] };
  const checks: Check[] = [];
  const catchUp: CatchUp[] = [];
  const runOnce = async (side: SideResult, subscriptions: number, seconds: number, warmUp: boolean) => {
    const receivers = Array.from({ length: subscriptions }, () => new Receiver(0));
    const ids = await Promise.all((await Promise.all(receivers.map((receiver) => receiver.start()))).map((url) => subscribe(target, url, 'now')));
    try {
      const cpuBefore = serverCpuSeconds(target);
      const { run, recorded } = await measureDecisions([target], DECOMMISSION, seconds, options.connections);
      if (subscriptions > 0) {
        const [deliveredInRun, runEndedAt] = [Math.min(...receivers.map((receiver) => receiver.arrivals.size)), performance.now()];
        checks.push({ ok: await received(receivers, recorded), message: `10 subscriptions each received all ${recorded.toLocaleString('en')} events of a ${seconds} s run` });
        if (!warmUp) {
          catchUp.push({ deliveredInRun: deliveredInRun / Math.max(1, recorded), seconds: (performance.now() - runEndedAt) / 1000 });
        }
      }
      // The server's CPU per decision, its events' deliveries included: they are what delivery costs it.
      run.cpuUsPerAnswer = ((serverCpuSeconds(target) - cpuBefore) * 1e6) / Math.max(1, recorded);
      if (warmUp) {
        side.warmUp = run;
      } else {
        side.rounds.push(run);
      }
    } finally {
      await unsubscribe(target, ids);
      await Promise.all(receivers.map((receiver) => receiver.stop()));
    }
  };
  await runOnce(without, 0, options.warmUpSeconds, true);
  await runOnce(withTen, 10, options.warmUpSeconds, true);
  for (let round = 0; round < options.rounds; round++) {
    await runOnce(without, 0, options.seconds, false);
    await runOnce(withTen, 10, options.seconds, false);
    console.log(`  round ${round + 1} of ${options.rounds} done, load average ${loadAverageText()}`);
  }
  return { without, with: withTen, catchUp, ratio: ratios(withTen.rounds, without.rounds)?.requestsPerSecond as Spread, checks: [...checks, answersCheck(DECOMMISSION, without), answersCheck(DECOMMISSION, withTen)] };
}

async function main(): Promise<void> {
  const options = readOptions();
  pinDriverToClientCpu();
  console.log(`Receivers and the driver on the client CPU beside wrk (-t1 -c${options.connections}); the server on its own CPU. ${options.rounds} rounds of ${options.seconds} s per side after a ${options.warmUpSeconds} s warm-up.`);
  console.log(machineLine(machine()));
  const engine = options.postgres ? 'PostgreSQL' : 'SQLite';
  console.log(`The service on ${engine} with NODE_ENV=production, rate limits off, WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_NETWORKS on (the receivers are local).\n`);

  const lab = new Lab(mkdtempSync(join(tmpdir(), 'fleet-registry-delivery-')), options.profileDir);
  const checks: Check[] = [];
  try {
    const secretKeyFile = join(lab.dir, 'webhook-secret.key');
    writeFileSync(secretKeyFile, randomBytes(32), { mode: 0o600 });
    const wrkSeconds = 2 * (options.warmUpSeconds + options.rounds * options.seconds);
    const assets = wrkSeconds * DECOMMISSIONS_PER_SECOND_BOUND + 4 * options.backlog + 4 * options.slowBacklog + options.rate * options.pacedSeconds + 1_000;
    const databaseUrl = options.postgres ? await lab.postgresDatabase() : (await sqliteFleet(lab.dir, { vessels: 0, assets }, ['delivery-sqlite']))[0];
    if (options.postgres) {
      await generateFleet(databaseUrl, { vessels: 0, assets });
    }
    const target = await lab.startService(engine, databaseUrl, {
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_SECRET_KEY_FILE: secretKeyFile, WEBHOOK_SUBSCRIPTIONS_MAX: '20' },
    });

    console.log('delivery throughput (a backlog in the trail, then subscriptions from its first event)');
    const rows: ThroughputRow[] = [];
    for (const [delayMs, events] of [
      [0, options.backlog],
      [50, options.slowBacklog],
    ]) {
      for (const subscriptions of [1, 10]) {
        const row = await measureThroughput(target, delayMs, subscriptions, events);
        rows.push(row);
        console.log(`  ${row.label.padEnd(48)} ${Math.round(row.eventsPerSecond).toLocaleString('en')} events/s delivered, server CPU ${row.cpuMsPerEvent.toFixed(3)} ms/event`);
      }
    }

    console.log(`\nlag from commit to delivery (one subscription, decommissions paced at ${options.rate}/s for ${options.pacedSeconds} s)`);
    const lag = await measureLag(target, options);
    console.log(`  ${lag.events} events: p50 ${lag.p50Ms.toFixed(1)} ms, p99 ${lag.p99Ms.toFixed(1)} ms, max ${lag.maxMs.toFixed(1)} ms`);

    console.log('\nwhat delivery costs decisions (wrk decommissions, alternating rounds)');
    const cost = await measureCost(target, options);
    const cpuMsPerDecision = (side: SideResult) => spread(side.rounds.map((round) => (round.cpuUsPerAnswer ?? NaN) / 1000)).median;
    for (const side of [cost.without, cost.with]) {
      const perSecond = side.rounds.map((round) => round.requestsPerSecond);
      console.log(
        `  ${side.label.padEnd(36)} ${perSecond.map(Math.round).join(', ')} decommissions/s (median ${Math.round(spread(perSecond).median)}), server CPU ${cpuMsPerDecision(side).toFixed(3)} ms/decision`,
      );
    }
    const inRun = cost.catchUp.map((round) => `${Math.round(round.deliveredInRun * 100)}%`).join(', ');
    console.log(`  10 subscriptions: events each receiver had when the run ended ${inRun}; all arrived ${cost.catchUp.map((round) => round.seconds.toFixed(1)).join(', ')} s after it`);
    console.log(`  delivery's server CPU per delivered event while deciding: ${((cpuMsPerDecision(cost.with) - cpuMsPerDecision(cost.without)) / 10).toFixed(3)} ms`);

    checks.push(...rows.flatMap((row) => row.checks), ...lag.checks, ...cost.checks);
    console.log('\nchecks');
    for (const check of checks) {
      console.log(`  ${formatCheck(check)}`);
    }
    const { median: ratio, min, max } = cost.ratio;
    console.log('\ntargets (issue 34)');
    console.log(`  decisions with 10 subscriptions / without >= ${TARGETS.decisionsRatio}: ${ratio.toFixed(2)} (rounds ${min.toFixed(2)} to ${max.toFixed(2)}): ${ratio >= TARGETS.decisionsRatio ? 'MET' : 'MISSED'}`);
    console.log(`  p99 lag at ${options.rate} events/s < ${TARGETS.lagP99Ms} ms: ${lag.p99Ms.toFixed(1)} ms: ${lag.p99Ms < TARGETS.lagP99Ms ? 'MET' : 'MISSED'}`);
  } finally {
    await lab.tearDown();
  }
  console.log(`\nload average at the end ${loadAverageText()}`);
  reportFailedChecks(checks);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
