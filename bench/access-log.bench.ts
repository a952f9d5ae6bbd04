import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import { openSync, writeSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createDatabase } from '../src/database';
import { AppLogger, Metrics, RequestObserver, ServingLoad } from '../src/observability';

/*
 * What observing one request costs the service: its access line (AppLogger in JSON mode,
 * written to /dev/null as a log file would be written), its request metrics, and both through the
 * RequestObserver as Express would call it. Both are made at the end of the event loop's turn, so the
 * calls go in turns of TURN, each ended as the server's are, and the figures are net of an empty turn's
 * cost. Rounds alternate, and the minimum is the figure least disturbed by other work on a shared machine.
 */
const ROUNDS = 7;
const ITERATIONS = 20_000;
/** Requests answered in one turn of the event loop: about what the service answers under wrk's 32 connections. */
const TURN = 8;

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

const FIELDS = {
  request_id: '3e69cd0e-2708-4eab-aeed-d6c79dbb25b7',
  method: 'GET',
  route: '/v1/fleet/star-destroyers',
  status: 200,
  duration_ms: 14.61,
  actor: 'officer-7',
};

async function microsPerCall(work: () => void, iterations: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    work();
    if (i % TURN === TURN - 1) {
      await endOfTurn();
    }
  }
  return Number(process.hrtime.bigint() - start) / 1_000 / iterations;
}

async function main(): Promise<void> {
  const sink = openSync('/dev/null', 'w');
  const print = process.stdout.write.bind(process.stdout);
  Logger.overrideLogger(new AppLogger({ level: 'info', json: true }));
  const logger = new Logger('HTTP');
  const metrics = new Metrics(createDatabase({ dialect: 'sqlite', path: ':memory:' }));
  const load = new ServingLoad();
  const observer = new RequestObserver(metrics, load);
  const request = { method: 'GET', originalUrl: `${FIELDS.route}?limit=100`, route: { path: FIELDS.route }, requestId: FIELDS.request_id, officer: { id: FIELDS.actor, clearance: 7 } };
  const observeOne = () => {
    const response = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true });
    observer.middleware(request as unknown as Request, response as unknown as Response, () => undefined);
    response.emit('close');
  };
  const candidates = [
    { label: 'nothing (the turns alone)', work: () => undefined },
    { label: 'access line (AppLogger, JSON)', work: () => logger.log('request completed', FIELDS) },
    { label: 'request metrics (counter + histogram)', work: () => metrics.requestObserved({ method: 'GET', route: FIELDS.route, status: 200, seconds: 0.0146 }) },
    { label: 'RequestObserver: both, per request', work: observeOne },
  ];
  const samples = candidates.map(() => [] as number[]);
  process.stdout.write = (chunk: string) => writeSync(sink, chunk) > 0;
  try {
    for (const { work } of candidates) await microsPerCall(work, 2_000);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, { work }] of candidates.entries()) {
        samples[index].push(await microsPerCall(work, ITERATIONS));
      }
    }
  } finally {
    process.stdout.write = print;
  }
  const emptyTurns = Math.min(...samples[0]);
  for (const [index, { label }] of candidates.entries()) {
    const sorted = samples[index].sort((a, b) => a - b);
    const net = index === 0 ? '' : `  net of the turns: ${(sorted[0] - emptyTurns).toFixed(2)} µs`;
    console.log(`${label.padEnd(48)} min ${sorted[0].toFixed(2).padStart(6)} µs  median ${sorted[ROUNDS >> 1].toFixed(2).padStart(6)} µs${net}`);
  }
}

void main();
