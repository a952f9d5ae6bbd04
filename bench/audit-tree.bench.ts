import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testEngines } from '../test/support/databases';
import { generateFleet } from './fleet-data';
import { benchArguments, CLIENT_CPU, countTreeNodes, Lab, machine, machineLine, measureDecisions, pinDriverToClientCpu, positiveOption, ROUND_OPTIONS, SERVER_CPU, serverCpuSeconds, sqliteFleet, type Target } from './lab';
import { answersCheck, type Check, formatCheck, formatComparison, ratios, reportFailedChecks, type SideResult, spread } from './report';
import { DECOMMISSIONS_PER_SECOND_BOUND, type Workload, WORKLOADS } from './workloads';

/*
 * `npm run bench:audit-tree`: what keeping the audit trail's Merkle tree and signing its checkpoints
 * costs an audited decision. The decisions of bench:audit (allowed decommissions, clearance-6 denials)
 * against the service and against the same service with the tree's work taken out
 * (bench/service-without-tree.ts), each on a database of its own, on SQLite and, with TEST_DATABASE_URL,
 * PostgreSQL on the same host; rounds alternate which goes first, so a noisy neighbour weighs on both.
 * Prints decisions a second, the ratio round by round and the server's CPU per answer; exit code 1 when
 * the median ratio misses the target. See docs/performance.md, "What the tree costs a decision".
 */

const DECISIONS: Workload[] = [WORKLOADS.decommission, WORKLOADS.denied];
/** Issue 19: the tree and its checkpoints cost at most 10% of the decisions a second. */
const TARGET_RATIO = 0.9;
const WITHOUT_TREE = join(__dirname, 'service-without-tree.js');

interface Pair {
  engine: string;
  withTree: Target;
  withoutTree: Target;
}

/** A side's runs, and the server's CPU per answer in each of its rounds. */
interface Measured extends SideResult {
  cpuPerAnswerUs: number[];
}

async function measure(target: Target, workload: Workload, seconds: number, connections: number): Promise<{ run: Awaited<ReturnType<typeof measureDecisions>>['run']; cpuPerAnswerUs: number }> {
  const before = serverCpuSeconds(target);
  const { run } = await measureDecisions([target], workload, seconds, connections);
  return { run, cpuPerAnswerUs: ((serverCpuSeconds(target) - before) * 1e6) / Math.max(1, run.answers) };
}

async function comparePair(pair: Pair, workload: Workload, options: { rounds: number; seconds: number; warmUpSeconds: number; connections: number }): Promise<Check[]> {
  const sides = [pair.withTree, pair.withoutTree].map((target): Measured & { target: Target } => ({ target, label: target.label, rounds: [], cpuPerAnswerUs: [] }));
  for (const side of sides) {
    side.warmUp = (await measure(side.target, workload, options.warmUpSeconds, options.connections)).run;
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const { run, cpuPerAnswerUs } = await measure(side.target, workload, options.seconds, options.connections);
      side.rounds.push(run);
      side.cpuPerAnswerUs.push(cpuPerAnswerUs);
    }
  }
  const [withTree, withoutTree] = sides;
  const byRound = ratios(withTree.rounds, withoutTree.rounds);
  const ratio = byRound?.requestsPerSecond.median ?? 0;
  const checks = [
    answersCheck(workload, withTree),
    answersCheck(workload, withoutTree),
    { ok: ratio >= TARGET_RATIO, message: `${pair.engine}, ${workload.name}: with the tree / without, decisions a second, median of the rounds ${ratio.toFixed(2)} (target >= ${TARGET_RATIO})` },
  ];
  const cpu = (side: Measured) => `${Math.round(spread(side.cpuPerAnswerUs).median)} µs`;
  console.log(
    formatComparison({
      suite: 'audit tree',
      workload: `${pair.engine}: ${workload.name}`,
      request: 'DELETE /v1/assets/{asset_id}',
      a: withTree,
      b: withoutTree,
      ratios: byRound,
      checks,
      notes: [`the server's CPU per answer, median of the rounds: ${cpu(withTree)} with the tree, ${cpu(withoutTree)} without`],
    }),
    '\n',
  );
  return checks;
}

async function main(): Promise<void> {
  const values = benchArguments(ROUND_OPTIONS);
  const options = {
    rounds: positiveOption(values, 'rounds', values.quick ? 2 : 5),
    seconds: positiveOption(values, 'duration', values.quick ? 3 : 6),
    warmUpSeconds: positiveOption(values, 'warm-up', values.quick ? 1 : 2),
    connections: positiveOption(values, 'connections', 32),
  };
  pinDriverToClientCpu();
  console.log(
    `${options.rounds} rounds of ${options.seconds} s per side and workload after a ${options.warmUpSeconds} s warm-up, wrk -t1 -c${options.connections} on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU}`,
  );
  console.log(`${machineLine(machine())}\n`);
  const lab = new Lab(mkdtempSync(join(tmpdir(), 'fleet-registry-audit-tree-')));
  const checks: Check[] = [];
  try {
    const assets = (options.warmUpSeconds + options.rounds * options.seconds) * DECOMMISSIONS_PER_SECOND_BOUND;
    const engines = [{ engine: 'SQLite', urls: await sqliteFleet(lab.dir, { vessels: 0, assets }, ['with-tree', 'without-tree']) }];
    if (testEngines().includes('postgres')) {
      const urls = [await lab.postgresDatabase(), await lab.postgresDatabase()];
      await Promise.all(urls.map((url) => generateFleet(url, { vessels: 0, assets })));
      engines.push({ engine: 'PostgreSQL, same host', urls });
    }
    for (const { engine, urls } of engines) {
      const pair = {
        engine,
        withTree: await lab.startService(`${engine}, with the tree`, urls[0]),
        withoutTree: await lab.startService(`${engine}, without the tree`, urls[1], { script: WITHOUT_TREE }),
      };
      for (const workload of DECISIONS) {
        checks.push(...(await comparePair(pair, workload, options)));
      }
      await Promise.all([pair.withTree.server.stop(), pair.withoutTree.server.stop()]);
      const [kept, leftOut] = await Promise.all(urls.map(countTreeNodes));
      const yardstick = { ok: kept > 0 && leftOut === 0, message: `${engine}: the tree's stored nodes, ${kept} with it and ${leftOut} without` };
      console.log(`  ${formatCheck(yardstick)}\n`);
      checks.push(yardstick);
    }
  } finally {
    await lab.tearDown();
  }
  console.log(`load average at the end ${loadavg()[0].toFixed(2)}`);
  reportFailedChecks(checks);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
