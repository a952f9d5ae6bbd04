import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The compiled entry points sit beside the compiled tests. */
export const SCRIPTS = {
  server: join(__dirname, '..', '..', 'src', 'main.js'),
  token: join(__dirname, '..', '..', 'src', 'cli', 'token.js'),
  import: join(__dirname, '..', '..', 'src', 'cli', 'import.js'),
  export: join(__dirname, '..', '..', 'src', 'cli', 'export.js'),
  auditExport: join(__dirname, '..', '..', 'src', 'cli', 'audit-export.js'),
  migrate: join(__dirname, '..', '..', 'src', 'cli', 'migrate.js'),
  auditVerify: join(__dirname, '..', '..', 'src', 'cli', 'audit-verify.js'),
  auditWitness: join(__dirname, '..', '..', 'src', 'cli', 'audit-witness.js'),
  decommissionApproval: join(__dirname, '..', '..', 'src', 'cli', 'decommission-approval.js'),
};

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: nothing from the developer's shell leaks into what is being tested. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, NODE_ENV: 'test', ...env };
}

export function runScript(
  script: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeout?: number; nodeOptions?: string[] },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const { cwd, env = {}, timeout = 30_000, nodeOptions = [] } = options;
    execFile(process.execPath, [...nodeOptions, script, ...args], { cwd, env: environment(env), timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A port free now below the kernel's ephemeral range (32768 and up, unless it says otherwise), where listen(0) never binds. */
async function freePortOutsideEphemeralRange(): Promise<number> {
  const [ephemeralStart] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  for (;;) {
    const port = ephemeralStart - 1 - Math.floor(Math.random() * 8_000);
    const server = createServer().listen(port, '127.0.0.1');
    const bound = await Promise.race([once(server, 'listening').then(() => true), once(server, 'error').then(() => false)]);
    if (bound) {
      server.close();
      await once(server, 'close');
      return port;
    }
  }
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Prepares the database of `env` as an operator would before starting instances: the service's own migrate, then an import of `records`. */
export async function migrateAndImport(cwd: string, env: Record<string, string>, records: object): Promise<void> {
  const file = join(cwd, 'records.json');
  writeFileSync(file, JSON.stringify(records));
  for (const [script, args] of [[SCRIPTS.migrate, []], [SCRIPTS.import, [file]]] as const) {
    const result = await runScript(script, [...args], { cwd, env });
    assert.equal(result.code, 0, result.stderr);
  }
}

export interface RunningServer {
  url: string;
  /** The server process, for tests that signal it or check that it is still running. */
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

export interface ServerOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Another compiled entry point that serves GET /health/live: a benchmark's yardstick. */
  script?: string;
  /** Pins the process to this CPU (taskset), as a benchmark does to keep it apart from its client. */
  cpu?: number;
  /** Options for node itself, before the script: a benchmark's `--cpu-prof`. */
  nodeOptions?: string[];
  /**
   * A file for the server's stdout and stderr instead of a pipe read into this process: a benchmark's
   * servers log a line per request, which its driver would otherwise read and keep on the client's CPU.
   */
  outputFile?: string;
  /** This port rather than a free one, and no other if it is taken. */
  port?: number;
  /** Runs the server as this user and group, as a container's securityContext does (needs root). */
  user?: { uid: number; gid: number };
  /**
   * A free port below the kernel's ephemeral range: a test whose clients keep connecting after the server
   * closed would otherwise reach whatever took the port next, as another test's listen(0) may.
   */
  outsideEphemeralRange?: boolean;
}

/** Whether `output` has the line every server this starts prints once it listens: the service, and a benchmark's yardsticks. */
const saysItListensOn = (output: string, port: number) => new RegExp(`listening on http://\\S+:${port}\\b`).test(output);

/** What the server says when the port it was given is taken: another test took the same free port meanwhile. */
const PORT_TAKEN = 'another process holds the port';

/** Starts the compiled server as a real process and waits until it answers, on another port if its first is taken. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  if (options.port !== undefined) {
    return startServerOn(options.port, options);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOn(options.outsideEphemeralRange ? await freePortOutsideEphemeralRange() : await freePort(), options);
    } catch (error) {
      if (attempt === 3 || !(error instanceof Error && error.message.includes(PORT_TAKEN))) {
        throw error;
      }
    }
  }
}

async function startServerOn(port: number, options: ServerOptions): Promise<RunningServer> {
  const node = [process.execPath, ...(options.nodeOptions ?? []), options.script ?? SCRIPTS.server];
  // taskset execs node, so the child's pid is the server's and signals reach it.
  const [command, ...args] = options.cpu === undefined ? node : ['taskset', '-c', String(options.cpu), ...node];
  const outputFd = options.outputFile === undefined ? undefined : openSync(options.outputFile, 'w');
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    // No delay before a SIGTERM's drain unless a test asks for one: every stop() would otherwise wait its 5 s.
    env: environment({ PORT: String(port), SHUTDOWN_DELAY_MS: '0', ...options.env }),
    stdio: outputFd === undefined ? 'pipe' : ['pipe', outputFd, outputFd],
    ...options.user,
  });
  if (outputFd !== undefined) {
    closeSync(outputFd);
  }
  let piped = '';
  child.stdout?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
  const output = () => (options.outputFile === undefined ? piped : readFileSync(options.outputFile, 'utf8'));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  // Generous: a loaded two-core machine can take several seconds to start Nest.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    }
    try {
      // The answer alone could come from another test's server that took the same free port first, while
      // this child is still on its way to failing on it: the child's own line says the port is its own.
      if ((await fetch(`${url}/health/live`)).ok && saysItListensOn(output(), port)) {
        return { url, child, output, stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`server did not answer within 30 s:\n${output()}`);
}

export interface LogLine {
  level: string;
  msg: string;
  context?: string;
}

/** The server's output so far, each line of which must be one JSON object. */
export function logLines(server: RunningServer): LogLine[] {
  const lines = server.output().split('\n').filter((line) => line !== '');
  for (const line of lines) {
    assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line}`);
  }
  return lines.map((line) => JSON.parse(line) as LogLine);
}

/** Starts several servers side by side; if one fails to start, the others are stopped before it throws. */
export async function startServers(count: number, options: ServerOptions): Promise<RunningServer[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startServer(options)));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(servers.map((server) => server.stop()));
    throw failure.reason;
  }
  return servers;
}

/**
 * Holds the SQLite file's write lock for `holdMs` from another process, then runs `beforeCommit` in that
 * transaction (a change another writer makes meanwhile) and commits. Not from the test's
 * own process: an app running in it waits for the lock synchronously, which would stop the test's timers
 * (and so the release) for as long as its busy_timeout.
 */
export async function holdSqliteWriteLock(path: string, holdMs: number, beforeCommit = ''): Promise<{ released: Promise<void> }> {
  const script = `const db = require('better-sqlite3')(process.argv[1]);
db.pragma('busy_timeout = 5000');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\\n');
setTimeout(() => { db.exec(process.argv[3]); db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`;
  const holder = spawn(process.execPath, ['-e', script, path, String(holdMs), beforeCommit], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(holder, 'exit');
  const [held] = (await Promise.race([once(holder.stdout, 'data'), exited])) as [Buffer | number];
  assert.ok(Buffer.isBuffer(held), `the lock holder exited with ${String(held)} before holding the lock`);
  return {
    released: exited.then(([code]) => assert.equal(code, 0, 'the lock holder committed')),
  };
}
