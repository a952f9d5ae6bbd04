import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WrkResult } from './wrk';

/*
 * Load at a set pace, for what wrk cannot do: a steady stream of requests at a fixed rate, and many
 * clients that each keep under their own rate limit. Node's http client, on the driver's CPU.
 */

/** As wrk's --timeout in bench/wrk.ts: a request unanswered after this counts as a socket error. */
const TIMEOUT_MS = 10_000;
const DECOMMISSION_BODY = JSON.stringify({ reason: 'Benchmark', authorized_by: 'Bench Officer' });

export interface Answer {
  /** 0: no answer (timeout or socket error). */
  status: number;
  /** From when the request was due, not when it left: a stream that falls behind counts its wait. */
  ms: number;
  /** When the answer was read, as performance.now(). */
  answeredAt: number;
}

export interface PacedRequest {
  path: string;
  authorization: string;
  /** The client's address, as a trusted proxy in front of the service would pass it on. */
  forwardedFor: string;
}

const agent = new Agent({ keepAlive: true });

function send(url: string, { path, authorization, forwardedFor }: PacedRequest): Promise<number> {
  return new Promise((resolve) => {
    const outgoing = request(`${url}${path}`, {
      method: 'DELETE',
      agent,
      headers: {
        Authorization: authorization,
        'Content-Type': 'application/json',
        // Node frames a DELETE's body neither by length nor in chunks unless told its length.
        'Content-Length': Buffer.byteLength(DECOMMISSION_BODY),
        'X-Forwarded-For': forwardedFor,
      },
    });
    outgoing.setTimeout(TIMEOUT_MS, () => outgoing.destroy());
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(0));
    });
    outgoing.on('error', () => resolve(0));
    outgoing.end(DECOMMISSION_BODY);
  });
}

async function timed(url: string, due: number, next: PacedRequest): Promise<Answer> {
  const status = await send(url, next);
  const answeredAt = performance.now();
  return { status, ms: answeredAt - due, answeredAt };
}

/** `rate` requests a second for `seconds`, each sent on time whether the ones before were answered or not. */
export async function steadyStream(url: string, rate: number, seconds: number, nextRequest: () => PacedRequest): Promise<Answer[]> {
  const start = performance.now();
  const answers: Promise<Answer>[] = [];
  for (let index = 0; index < Math.round(rate * seconds); index++) {
    const due = start + (index * 1000) / rate;
    await sleep(Math.max(0, due - performance.now()));
    answers.push(timed(url, due, nextRequest()));
  }
  return Promise.all(answers);
}

/**
 * A client that sends one request at a time and never two within `intervalMs` of each other, so it
 * stays under a per-client limit of fewer than 60,000 / intervalMs a minute, across calls too.
 */
export class PacedClient {
  private lastSentAt = -Infinity;

  constructor(
    private readonly intervalMs: number,
    private readonly nextRequest: () => PacedRequest,
  ) {}

  /** Sends from `startAt` (a performance.now() time) until `endAt`. */
  async run(url: string, startAt: number, endAt: number): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (let due = Math.max(startAt, this.lastSentAt + this.intervalMs); due < endAt; due = Math.max(this.lastSentAt + this.intervalMs, performance.now())) {
      await sleep(Math.max(0, due - performance.now()));
      this.lastSentAt = performance.now();
      answers.push(await timed(url, due, this.nextRequest()));
    }
    return answers;
  }
}

/** The q-th quantile (0 to 1) of the values, nearest rank; 0 for none. */
export function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

/** The q-th quantile (0 to 1) of the latencies, nearest rank; 0 for none. */
export const quantile = (answers: Answer[], q: number) => nearestRank(answers.map(({ ms }) => ms), q);

/** The answers of one window in wrk's terms, so that bench/report.ts checks them as it checks wrk's. */
export function asRun(answers: Answer[], seconds: number): WrkResult {
  const statuses: Record<string, number> = {};
  for (const { status } of answers.filter(({ status }) => status !== 0)) {
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const answered = answers.filter(({ status }) => status !== 0);
  return {
    answers: answered.length,
    requestsPerSecond: answered.length / seconds,
    p50Ms: quantile(answered, 0.5),
    p99Ms: quantile(answered, 0.99),
    statuses,
    socketErrors: answers.length - answered.length,
    sent: answers.length,
    mostSentByAThread: answers.length,
  };
}
