import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The Lua script stays in bench/: tsc copies only TypeScript into .test-build. */
const WORKLOAD_SCRIPT = join(__dirname, '..', '..', 'bench', 'wrk-workload.lua');

export interface WrkRun {
  url: string;
  /** `Bearer <jwt>`, or none for public routes. */
  authorization?: string;
  seconds: number;
  connections: number;
  threads: number;
  /** The CPU wrk is pinned to, apart from the server's. */
  cpu: number;
  /** After wrk's `--`: see bench/wrk-workload.lua. */
  workload: string[];
}

export interface WrkResult {
  /** Requests answered within the run. */
  answers: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Connections refused, reset or timed out: never expected. */
  socketErrors: number;
  /** Requests sent, answered or not: wrk stops with up to one a connection unanswered. */
  sent: number;
  /** Requests sent by the busiest thread, answered or not: how far a decommission run got through its assets. */
  mostSentByAThread: number;
  /** The server's CPU time per answer in µs, read from /proc by the driver around the run: steadier than req/s on a shared machine. */
  cpuUsPerAnswer?: number;
}

interface WrkReport {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  sent: number;
  most_sent_by_a_thread: number;
  statuses: Record<string, number>;
  socket_errors: Record<string, number>;
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = ['-c', String(run.cpu), 'wrk', `-t${run.threads}`, `-c${run.connections}`, `-d${run.seconds}s`, '--timeout', '10s', '-s', WORKLOAD_SCRIPT];
  if (run.authorization) {
    args.push('-H', `Authorization: ${run.authorization}`);
  }
  const { stdout } = await promisify(execFile)('taskset', [...args, run.url, '--', ...run.workload]);
  const line = stdout.split('\n').find((text) => text.startsWith('WRK_RESULT '));
  if (!line) {
    throw new Error(`wrk printed no result:\n${stdout}`);
  }
  const report = JSON.parse(line.slice('WRK_RESULT '.length)) as WrkReport;
  return {
    answers: report.requests,
    requestsPerSecond: report.requests / (report.duration_us / 1e6),
    p50Ms: report.p50_us / 1000,
    p99Ms: report.p99_us / 1000,
    statuses: report.statuses,
    socketErrors: Object.values(report.socket_errors).reduce((sum, count) => sum + count, 0),
    sent: report.sent,
    mostSentByAThread: report.most_sent_by_a_thread,
  };
}

/**
 * wrk runs side by side, one per instance, as one: answers and rates add up, and the latencies are
 * the slowest run's, as their histograms cannot be merged.
 */
export function combineRuns(runs: WrkResult[]): WrkResult {
  const statuses: Record<string, number> = {};
  for (const run of runs) {
    for (const [status, count] of Object.entries(run.statuses)) {
      statuses[status] = (statuses[status] ?? 0) + count;
    }
  }
  const sum = (field: 'answers' | 'requestsPerSecond' | 'socketErrors' | 'sent') => runs.reduce((total, run) => total + run[field], 0);
  const slowest = (field: 'p50Ms' | 'p99Ms' | 'mostSentByAThread') => Math.max(...runs.map((run) => run[field]));
  return {
    answers: sum('answers'),
    requestsPerSecond: sum('requestsPerSecond'),
    p50Ms: slowest('p50Ms'),
    p99Ms: slowest('p99Ms'),
    statuses,
    socketErrors: sum('socketErrors'),
    sent: sum('sent'),
    mostSentByAThread: slowest('mostSentByAThread'),
  };
}
