import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { openSync, writeSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createDatabase } from '../src/database';
import { AppLogger, Metrics, RequestObserver } from '../src/observability';

/*
 * What observing one request costs the service: its access line (AppLogger in JSON mode,
 * written to /dev/null as a log file would be written), its request metrics, and both through the
 * RequestObserver as Express would call it. Rounds alternate, and the minimum is the figure least
 * disturbed by other work on a shared machine.
 */
const ROUNDS = 7;
const ITERATIONS = 20_000;

const FIELDS = {
  request_id: '3e69cd0e-2708-4eab-aeed-d6c79dbb25b7',
  method: 'GET',
  route: '/v1/fleet/star-destroyers',
  status: 200,
  duration_ms: 14.61,
  actor: 'officer-7',
};

function microsPerCall(work: () => void, iterations: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) work();
  return Number(process.hrtime.bigint() - start) / 1_000 / iterations;
}

function main(): void {
  const sink = openSync('/dev/null', 'w');
  const print = process.stdout.write.bind(process.stdout);
  Logger.overrideLogger(new AppLogger({ level: 'info', json: true }));
  const logger = new Logger('HTTP');
  const metrics = new Metrics(createDatabase({ dialect: 'sqlite', path: ':memory:' }));
  const observer = new RequestObserver(metrics);
  const request = { method: 'GET', originalUrl: `${FIELDS.route}?limit=100`, route: { path: FIELDS.route }, requestId: FIELDS.request_id, officer: { id: FIELDS.actor, clearance: 7 } };
  const observeOne = () => {
    const response = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true });
    observer.middleware(request as unknown as Request, response as unknown as Response, () => undefined);
    response.emit('close');
  };
  const candidates = [
    { label: 'access line (AppLogger, JSON)', work: () => logger.log('request completed', FIELDS) },
    { label: 'request metrics (counter + histogram)', work: () => metrics.requestObserved({ method: 'GET', route: FIELDS.route, status: 200, seconds: 0.0146 }) },
    { label: 'RequestObserver: both, per request', work: observeOne },
  ];
  const samples = candidates.map(() => [] as number[]);
  process.stdout.write = (chunk: string) => writeSync(sink, chunk) > 0;
  try {
    for (const { work } of candidates) microsPerCall(work, 2_000);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, { work }] of candidates.entries()) {
        samples[index].push(microsPerCall(work, ITERATIONS));
      }
    }
  } finally {
    process.stdout.write = print;
  }
  for (const [index, { label }] of candidates.entries()) {
    const sorted = samples[index].sort((a, b) => a - b);
    console.log(`${label.padEnd(48)} min ${sorted[0].toFixed(2).padStart(6)} µs  median ${sorted[ROUNDS >> 1].toFixed(2).padStart(6)} µs`);
  }
}

main();
