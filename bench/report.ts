import type { Workload } from './workloads';
import type { WrkResult } from './wrk';

type Figure = 'requestsPerSecond' | 'p50Ms' | 'p99Ms' | 'cpuUsPerAnswer';

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface SideResult {
  label: string;
  /** Why this side was not measured (work it does not do yet); its rounds are then empty. */
  notApplicable?: string;
  warmUp?: WrkResult;
  rounds: WrkResult[];
}

export interface Check {
  ok: boolean;
  message: string;
}

export interface ComparisonResult {
  suite: string;
  workload: string;
  /** The first request of the workload, as the first side sends it. */
  request: string;
  a: SideResult;
  b: SideResult;
  /** A over B, round by round (A's round i against B's round i); absent when a side is n/a. */
  ratios?: { requestsPerSecond: Spread; p50: Spread; p99: Spread; cpuPerAnswer: Spread };
  checks: Check[];
  /** What weakens a figure without making it wrong. */
  notes: string[];
  /** The assets one answer stands for (a batch's), so the notes can count in assets. */
  perAnswer?: number;
}

export function spread(values: number[]): Spread {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

export function ratios(a: WrkResult[], b: WrkResult[]): ComparisonResult['ratios'] {
  const over = (field: Figure) => spread(a.map((round, index) => (round[field] ?? NaN) / (b[index][field] ?? NaN)));
  return { requestsPerSecond: over('requestsPerSecond'), p50: over('p50Ms'), p99: over('p99Ms'), cpuPerAnswer: over('cpuUsPerAnswer') };
}

const LABEL_WIDTH = 34;
const cell = (text: string) => text.padStart(10);
const rate = (value: number) => cell(Math.round(value).toLocaleString('en'));
const millis = (value: number) => cell(value.toFixed(2));
const ratio = (value: number) => cell(value.toFixed(2));

const medianOf = (side: SideResult, field: Figure) => spread(side.rounds.map((round) => round[field] ?? NaN)).median;

/** A's medians here over B's on another workload of the same run: rounds not paired, so no spread. */
export function crossNotes(result: ComparisonResult, other: ComparisonResult): string[] {
  // Against the other side there, and against the same side there: a retry-safe or batched decision against its own plain DELETE.
  return [other.b, other.a].flatMap((b) => {
    const a = result.a;
    if (a.notApplicable || b.notApplicable || a.rounds.length === 0 || b.rounds.length === 0 || silentRounds(a) + silentRounds(b) > 0) {
      return [];
    }
    const over = (field: Figure) => (medianOf(a, field) / medianOf(b, field)).toFixed(2);
    const assets = result.perAnswer && result.perAnswer > 1 ? `, assets/s ${((medianOf(a, 'requestsPerSecond') * result.perAnswer) / medianOf(b, 'requestsPerSecond')).toFixed(2)}` : '';
    return [`${a.label} here / ${b.label} on "${other.workload}", medians: req/s ${over('requestsPerSecond')}${assets}, p99 ${over('p99Ms')}`];
  });
}

const runsOf = (side: SideResult) => [side.warmUp, ...side.rounds].filter((run): run is WrkResult => run !== undefined);

/** Every answer had the workload's status, and no connection failed. */
export function answersCheck(workload: Workload, side: SideResult): Check {
  const runs = runsOf(side);
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
 * Every answer of the workload's status is on the record. wrk stops with requests unanswered, which
 * the server may still have recorded: the count lies between the answers and the requests sent.
 */
export function recordedCheck(workload: Workload, side: SideResult, recorded: number): Check {
  const runs = runsOf(side);
  // A batch's answer stands for one event per asset.
  const perAnswer = workload.perAnswer ?? 1;
  const answered = runs.reduce((sum, run) => sum + (run.statuses[workload.status] ?? 0), 0) * perAnswer;
  const sent = runs.reduce((sum, run) => sum + run.sent, 0) * perAnswer;
  const count = (value: number) => value.toLocaleString('en');
  return {
    ok: recorded >= answered && recorded <= sent,
    message: `${side.label}: ${count(answered)} answered ${workload.status}, ${count(recorded)} ${workload.recorded} audit events recorded, ${count(sent)} requests sent`,
  };
}

/** Rounds that got no answer at all: their latencies would read 0. */
export const silentRounds = (side: SideResult) => side.rounds.filter((round) => round.answers === 0).length;

export const formatCheck = (check: Check) => `${check.ok ? 'ok' : 'FAILED'}: ${check.message}`;

function sideRow(side: SideResult): string {
  const silent = silentRounds(side);
  if (side.notApplicable || silent > 0) {
    return `  ${side.label.padEnd(LABEL_WIDTH)}  n/a: ${side.notApplicable ?? `no answer in ${silent} of ${side.rounds.length} rounds`}`;
  }
  return `  ${side.label.padEnd(LABEL_WIDTH)}${rate(medianOf(side, 'requestsPerSecond'))}${millis(medianOf(side, 'p50Ms'))}${millis(medianOf(side, 'p99Ms'))}${rate(medianOf(side, 'cpuUsPerAnswer'))}`;
}

/** One table per workload: each side's medians over the rounds, then A/B as min, median and max over rounds. */
export function formatComparison(result: ComparisonResult): string {
  const lines = [
    `${result.workload}  (${result.request})`,
    `  ${'medians over the rounds'.padEnd(LABEL_WIDTH)}${cell('req/s')}${cell('p50 ms')}${cell('p99 ms')}${cell('CPU µs')}`,
    sideRow(result.a),
    sideRow(result.b),
  ];
  if (result.ratios) {
    const { requestsPerSecond, p50, p99, cpuPerAnswer } = result.ratios;
    lines.push(`  ${result.a.label} / ${result.b.label}, round by round`);
    for (const key of ['min', 'median', 'max'] as const) {
      lines.push(`  ${key.padStart(LABEL_WIDTH)}${ratio(requestsPerSecond[key])}${ratio(p50[key])}${ratio(p99[key])}${ratio(cpuPerAnswer[key])}`);
    }
  }
  lines.push(...result.checks.map((check) => `  ${formatCheck(check)}`), ...result.notes.map((note) => `  note: ${note}`));
  return lines.join('\n');
}

/** Names every failed check, and makes the run exit 1 when there is one. */
export function reportFailedChecks(checks: Check[]): void {
  const failed = checks.filter((check) => !check.ok);
  if (failed.length > 0) {
    console.error(`\n${failed.length} check(s) FAILED:\n${failed.map((check) => check.message).join('\n')}`);
    process.exitCode = 1;
  }
}
