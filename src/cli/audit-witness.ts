import '../runtime';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Checkpoint, openCheckpoint, parseVerifierKey, verifyConsistency } from '../audit';
import { AUDIT_WITNESS_USAGE, parseWitnessArguments, type WitnessArguments } from './audit-arguments';
import { runCommand, unreachableReason } from './run-command';
import { parseWitnessServeArguments, WITNESS_SERVE_USAGE } from './witness-arguments';
import { WitnessServer } from './witness-server';

/** How long a witness waits for each answer: a service that accepts the connection and never answers ends the run. */
const ANSWER_TIMEOUT_MS = 30_000;

/** What a witness keeps between runs: the key it checks with and the last checkpoint it accepted. */
interface WitnessState {
  verifier_key: string;
  checkpoint: string;
}

async function readState(file: string): Promise<WitnessState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
  const state = JSON.parse(text) as Partial<WitnessState>;
  if (typeof state.verifier_key !== 'string' || typeof state.checkpoint !== 'string') {
    throw new Error(`${file} is not a witness state file: it needs verifier_key and checkpoint`);
  }
  return state as WitnessState;
}

/** Written beside and renamed over, so a witness killed mid-write leaves the old state whole. */
async function writeState(file: string, state: WitnessState): Promise<void> {
  await writeFile(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

/** The body of the service's answer to GET `path`; any failure, on the network or an error status, in one sentence naming the URL. */
async function get(args: WitnessArguments, path: string): Promise<string> {
  const url = new URL(path, args.url);
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${args.token}` }, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    body = await response.text();
  } catch (error) {
    throw new Error(`Cannot reach the service at ${url.href}: ${unreachableReason(error)}. Check --url, and that the service is up and reachable from here`, { cause: error });
  }
  if (!response.ok) {
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // not the service's error body: show it as it came
    }
    throw new Error(`GET ${url.href} answered ${response.status}: ${message}`);
  }
  return body;
}

/**
 * Accepts the service's latest checkpoint only if its signature is good and it extends the one accepted
 * last (a consistency proof); only then stores it. Any other outcome leaves the state file as it was.
 */
async function witness(args: WitnessArguments): Promise<void> {
  const state = await readState(args.state);
  const verifierKey = args.verifierKey ?? state?.verifier_key ?? (await get(args, '/v1/audit/checkpoint/verifier-key')).trim();
  const verifier = parseVerifierKey(verifierKey);
  const note = await get(args, '/v1/audit/checkpoint');
  const latest = openCheckpoint(note, verifier);
  if (state) {
    const previous = openCheckpoint(state.checkpoint, parseVerifierKey(state.verifier_key));
    const grew = previous.size > 0 && latest.size > previous.size;
    assertExtends(previous, latest, grew ? await consistencyPath(args, previous.size, latest.size) : []);
  }
  await writeState(args.state, { verifier_key: verifierKey, checkpoint: note });
  console.log(`Witnessed ${latest.origin} at ${latest.size} events, root ${latest.root}${state ? '' : ' (first checkpoint: trusted as it is)'}`);
}

async function consistencyPath(args: WitnessArguments, first: number, second: number): Promise<string[]> {
  const reply = await get(args, `/v1/audit/consistency-proof?first=${first}&second=${second}`);
  return (JSON.parse(reply) as { data: { consistency_path: string[] } }).data.consistency_path;
}

function assertExtends(previous: Checkpoint, latest: Checkpoint, proof: string[]): void {
  if (latest.origin !== previous.origin) {
    throw new Error(`The checkpoint is of the log ${latest.origin}, not of ${previous.origin} that this state file witnesses`);
  }
  if (latest.size < previous.size) {
    throw new Error(`The log shrank from ${previous.size} to ${latest.size} events: it was rolled back, e.g. restored from an older backup`);
  }
  if (latest.size === previous.size && latest.root !== previous.root) {
    throw new Error(`The log has ${latest.size} events as before but another root: its history was rewritten`);
  }
  if (previous.size > 0 && latest.size > previous.size && !verifyConsistency(previous.size, latest.size, previous.root, latest.root, proof)) {
    throw new Error(`The consistency proof from ${previous.size} to ${latest.size} events fails: the new tree does not extend the one witnessed, its history was rewritten`);
  }
}

// `serve` runs a witness server; without it, the one-shot witness of a service's checkpoints.
if (process.argv[2] === 'serve') {
  runCommand({
    script: 'audit:witness',
    subcommand: 'serve',
    usage: WITNESS_SERVE_USAGE,
    parse: (args) => parseWitnessServeArguments(args.slice(1)),
    async run(args) {
      const witness = await WitnessServer.start(args);
      console.log(`Witness ${args.name} listening on ${args.host}:${witness.port} for ${[...args.logs.keys()].join(', ')}`);
      console.log(`Witness verifier key: ${witness.verifierKey}`);
      for (const signal of ['SIGINT', 'SIGTERM'] as const) {
        process.once(signal, () => void witness.stop());
      }
    },
  });
} else {
  runCommand({
    script: 'audit:witness',
    usage: AUDIT_WITNESS_USAGE,
    parse: parseWitnessArguments,
    async run(args) {
      await witness(args);
      while (args.watchSeconds !== undefined) {
        await sleep(args.watchSeconds * 1000);
        await witness(args);
      }
    },
  });
}
