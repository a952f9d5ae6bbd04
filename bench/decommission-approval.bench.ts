import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import { testEngines } from '../test/support/databases';
import { listenOnLoopback, startTestApp, type TestApp } from '../test/support/test-app';
import { assetId } from './fleet-data';
import { machine } from './lab';

/*
 * `npm run bench:approval`: the latency a client sees for one decommission, sequential requests over
 * loopback HTTP to the real app: a direct DELETE (DECOMMISSION_APPROVAL=none) against a DELETE that
 * opens a request plus the named officer's approval (required), on SQLite and, with
 * TEST_DATABASE_URL, PostgreSQL; alternating rounds so a load on the machine hits both alike.
 * Figures, not a pass/fail test. See docs/performance.md.
 */
const ROUNDS = 3;
const PER_ROUND = 100;
const ASSETS = ROUNDS * PER_ROUND;
const BODY = { reason: 'Damaged beyond repair', authorized_by: 'officer-9' };

interface Subject {
  app: TestApp;
  url: string;
  requester: string;
  approver: string;
  next: number;
}

async function open(engine: 'sqlite' | 'postgres', policy: 'none' | 'required'): Promise<Subject> {
  const assets = Array.from({ length: ASSETS }, (_, index) => ({ asset_id: assetId(index), asset_type: 'vehicle', former_pilot: `TK-${index}` }));
  const app = await startTestApp({ engine, env: { DECOMMISSION_APPROVAL: policy }, records: { vessels: [], assets } });
  return { app, url: await listenOnLoopback(app), requester: app.bearer('officer-7', 7), approver: app.bearer('officer-9', 7), next: 0 };
}

async function call(url: string, method: string, authorization: string, body?: object): Promise<Response> {
  const res = await fetch(url, { method, headers: { Authorization: authorization, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  await res.arrayBuffer();
  return res;
}

/** One decommission, timed from the first request sent to the last answer read; fails on any unexpected status. */
async function decommissionOnce(subject: Subject, approval: boolean): Promise<number> {
  const asset = `${subject.url}/v1/assets/${assetId(subject.next++)}`;
  const started = performance.now();
  const asked = await call(asset, 'DELETE', subject.requester, BODY);
  if (approval) {
    const location = asked.headers.get('location');
    if (asked.status !== 202 || !location) {
      throw new Error(`DELETE answered ${asked.status}`);
    }
    const approved = await call(`${subject.url}${location}/approve`, 'POST', subject.approver);
    if (approved.status !== 200) {
      throw new Error(`approve answered ${approved.status}`);
    }
  } else if (asked.status !== 200) {
    throw new Error(`DELETE answered ${asked.status}`);
  }
  return performance.now() - started;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const describe = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
};

async function main(): Promise<void> {
  Logger.overrideLogger(false);
  console.log(JSON.stringify(machine()));
  for (const engine of testEngines()) {
    const direct = await open(engine, 'none');
    const approved = await open(engine, 'required');
    const samples = { direct: [] as number[], approved: [] as number[] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (let index = 0; index < PER_ROUND; index++) {
          samples.direct.push(await decommissionOnce(direct, false));
          samples.approved.push(await decommissionOnce(approved, true));
        }
      }
    } finally {
      await direct.app.close();
      await approved.app.close();
    }
    const [d, a] = [describe(samples.direct), describe(samples.approved)];
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    console.log(
      `${engine}: direct DELETE p50 ${ms(d.p50)}, p99 ${ms(d.p99)}; DELETE (202) + approve p50 ${ms(a.p50)}, p99 ${ms(a.p99)} ` +
        `(${(a.p50 / d.p50).toFixed(2)}x at p50; ${ROUNDS * PER_ROUND} sequential decommissions each)`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
