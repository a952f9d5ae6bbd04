import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWitness, type RunningWitness, startWitness, verifierKey } from '../test/support/witnesses';
import { assetId } from './fleet-data';
import { bearerToken, benchArguments, decommissionLeaves, Lab, loadAverageText, machine, machineLine, pinDriverToClientCpu, positiveOption, sqliteFleet } from './lab';
import { nearestRank, type PacedRequest, steadyStream } from './paced-load';
import { WORKLOADS } from './workloads';

/*
 * `npm run bench:witness`: issue 37's cosigning lag, over HTTP against a real service process (SQLite,
 * NODE_ENV=production) on the servers' CPU, with three `audit:witness serve` processes and a quorum of
 * --quorum (2) of them. Decommissions paced at --rate (500) a second for --duration (10) seconds while the
 * driver polls GET /v1/audit/checkpoint every 10 ms; each decommission's lag is the time from its
 * answer (its commit) to the first poll that served a checkpoint with the quorum that includes its
 * event. The checkpoint interval is the service's default unless --checkpoint-interval-ms says.
 */

const DECOMMISSION = WORKLOADS.decommission;
const ORIGIN = 'bench.invalid/audit';
const POLL_MS = 10;

function readOptions() {
  const values = benchArguments({ rate: { type: 'string' }, duration: { type: 'string' }, quorum: { type: 'string' }, 'checkpoint-interval-ms': { type: 'string' } });
  return {
    rate: positiveOption(values, 'rate', 500),
    seconds: positiveOption(values, 'duration', 10),
    quorum: positiveOption(values, 'quorum', 2),
    checkpointIntervalMs: positiveOption(values, 'checkpoint-interval-ms', 1_000),
  };
}

/** Polls the served checkpoint's size until stopped: when each size was first served. */
function pollServedSizes(url: string, until: AbortSignal): Promise<{ at: number; size: number }[]> {
  const seen: { at: number; size: number }[] = [];
  const authorization = bearerToken(7);
  return (async () => {
    while (!until.aborted) {
      const response = await fetch(`${url}/v1/audit/checkpoint`, { headers: { Authorization: authorization, 'X-Forwarded-For': '127.0.0.1' } });
      const size = response.ok ? Number((await response.text()).split('\n')[1]) : 0;
      if (size > (seen.at(-1)?.size ?? 0)) {
        seen.push({ at: performance.now(), size });
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return seen;
  })();
}

async function main(): Promise<void> {
  const options = readOptions();
  pinDriverToClientCpu();
  console.log(machineLine(machine()));
  console.log(
    `The service on SQLite with NODE_ENV=production, three local witnesses, quorum ${options.quorum}, AUDIT_CHECKPOINT_INTERVAL_MS ${options.checkpointIntervalMs}; decommissions paced at ${options.rate}/s for ${options.seconds} s.\n`,
  );
  const lab = new Lab(mkdtempSync(join(tmpdir(), 'fleet-registry-witness-')));
  const witnesses: RunningWitness[] = [];
  try {
    const { privateKey } = generateKeyPairSync('ed25519');
    const logKeyFile = join(lab.dir, 'log-key.pem');
    writeFileSync(logKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const logKey = verifierKey(ORIGIN, privateKey, 0x01);
    const made = ['w1.bench/witness', 'w2.bench/witness', 'w3.bench/witness'].map((name) => makeWitness(lab.dir, name));
    witnesses.push(...(await Promise.all(made.map((witness) => startWitness(witness, logKey)))));
    const [databaseUrl] = await sqliteFleet(lab.dir, { vessels: 0, assets: options.rate * options.seconds + 1_000 }, ['witness-sqlite']);
    const target = await lab.startService('SQLite', databaseUrl, {
      env: {
        AUDIT_SIGNING_KEY_FILE: logKeyFile,
        AUDIT_LOG_ORIGIN: ORIGIN,
        AUDIT_CHECKPOINT_INTERVAL_MS: String(options.checkpointIntervalMs),
        AUDIT_WITNESSES: JSON.stringify(made.map((witness, index) => ({ url: witnesses[index].url, key: witness.vkey }))),
        AUDIT_WITNESS_QUORUM: String(options.quorum),
      },
    });
    const stop = new AbortController();
    const polling = pollServedSizes(target.server.url, stop.signal);
    const officer = bearerToken(DECOMMISSION.requests.clearance);
    const sent: string[] = [];
    const answers = await steadyStream(target.server.url, options.rate, options.seconds, (): PacedRequest => {
      const asset = assetId(target.assets.next++);
      sent.push(asset);
      return { path: `/v1/assets/${asset}`, authorization: officer, forwardedFor: '127.0.0.1' };
    });
    const leaves = new Map((await decommissionLeaves(databaseUrl)).map((row) => [row.asset_id, row.leaf_index]));
    const last = Math.max(...leaves.values());
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline && !(await served(target.server.url, last))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 2 * POLL_MS));
    stop.abort();
    const sizes = await polling;
    const lags = answers.flatMap((answer, index) => {
      const leaf = answer.status === DECOMMISSION.status ? leaves.get(sent[index]) : undefined;
      const servedAt = leaf === undefined ? undefined : sizes.find(({ size }) => size > leaf)?.at;
      return servedAt === undefined ? [] : [Math.max(0, servedAt - answer.answeredAt)];
    });
    const allowed = answers.filter((answer) => answer.status === DECOMMISSION.status).length;
    console.log(`cosigning lag, commit to a served checkpoint with the quorum (${lags.length} of ${allowed} decommissions allowed, ${answers.length} sent)`);
    console.log(`  p50 ${nearestRank(lags, 0.5).toFixed(1)} ms, p99 ${nearestRank(lags, 0.99).toFixed(1)} ms, max ${nearestRank(lags, 1).toFixed(1)} ms`);
    if (lags.length < allowed) {
      process.exitCode = 1;
      console.log(`  ${allowed - lags.length} decommissions never reached a served checkpoint within 60 s`);
    }
  } finally {
    await Promise.all(witnesses.map((witness) => witness.kill()));
    await lab.tearDown();
  }
  console.log(`\nload average at the end ${loadAverageText()}`);
}

/** Whether the served checkpoint includes leaf `leaf`. */
async function served(url: string, leaf: number): Promise<boolean> {
  const response = await fetch(`${url}/v1/audit/checkpoint`, { headers: { Authorization: bearerToken(7), 'X-Forwarded-For': '127.0.0.1' } });
  return response.ok && Number((await response.text()).split('\n')[1]) > leaf;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
