import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { LOG_LEVELS, type LogLevelName } from '../config';

/** Nest's name for each level of LOG_LEVEL. */
const NEST_LEVELS: Record<LogLevelName, LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'log',
  debug: 'debug',
  trace: 'verbose',
};
const LEVEL_NAMES = Object.fromEntries(Object.entries(NEST_LEVELS).map(([name, nest]) => [nest, name])) as Record<LogLevel, LogLevelName>;
/** Nest's start-up wiring, a line for each module loaded and each route mapped: some forty lines, of use when debugging. */
const WIRING_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * The JSON lines for stdout of this turn of the event loop, written in one write when it ends: under load
 * a turn answers many requests, and a write per access line cost a listing about a quarter more server
 * CPU on Node 26 (docs/performance.md). A line for stderr writes them first, and so does the process's
 * exit, so no line is reordered or lost to `process.exit`. One buffer, as there is one stdout.
 */
let pendingStdout = '';

function writePendingStdout(): void {
  if (pendingStdout !== '') {
    const text = pendingStdout;
    pendingStdout = '';
    process.stdout.write(text);
  }
}

process.on('exit', writePendingStdout);

function queueStdout(line: string): void {
  if (pendingStdout === '') {
    setImmediate(writePendingStdout);
  }
  pendingStdout += `${line}\n`;
}

type FlatFields = Record<string, string | number | boolean | null | undefined>;

/** Fields holding no object: nothing a cycle, a toJSON or a huge nesting could hide in. */
function isFlat(fields: unknown): fields is FlatFields {
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    return false;
  }
  return Object.values(fields).every((value) => value === null || (typeof value !== 'object' && typeof value !== 'bigint' && typeof value !== 'function'));
}

/** The keys ConsoleLogger's line keeps for itself: a field of the same name is dropped, as it drops it. */
const FRAMEWORK_KEYS = new Set(['level', 'pid', 'timestamp', 'message', 'context', 'time', 'msg']);

/**
 * The line printAsJson makes for flat fields, in one JSON.stringify: ConsoleLogger's general path
 * (argument parsing, then a stringify guarded against cycles and huge values that flat fields cannot
 * have) made a cached fleet page take 1.09 to 1.15 times the server CPU (docs/performance.md).
 */
function flatLine(msg: string, fields: FlatFields, context: string): string {
  const line: Record<string, unknown> = { time: new Date().toISOString(), level: LEVEL_NAMES.log, msg, pid: process.pid, context };
  for (const [key, value] of Object.entries(fields)) {
    if (!FRAMEWORK_KEYS.has(key)) {
      line[key] = value;
    }
  }
  return JSON.stringify(line);
}

export interface AppLoggerOptions {
  level: LogLevelName;
  /** One JSON object a line; otherwise Nest's coloured text, for a developer's terminal. */
  json: boolean;
}

/** JSON everywhere except on a terminal outside production, where a person reads the lines as they come. */
export function wantsJsonLogs(production: boolean, stream: { isTTY?: boolean } = process.stdout): boolean {
  return production || stream.isTTY !== true;
}

/**
 * Nest's console logger, whose JSON lines carry a UTC `time`, the level by its LOG_LEVEL name and the
 * structured fields a caller passes (`logger.log('request completed', { request_id, ... })`) at the top level.
 * It writes synchronously (to files, terminals and pipes), the JSON lines for stdout at the end of the
 * event loop's turn (pendingStdout).
 */
export class AppLogger extends ConsoleLogger {
  private readonly json: boolean;

  constructor({ level, json }: AppLoggerOptions) {
    super({
      json,
      colors: !json,
      flattenParams: true,
      logLevels: LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1).map((name) => NEST_LEVELS[name]),
    });
    this.json = json;
  }

  /** Nest's wiring lines go to debug; a line of flat fields (the access line) is made by flatLine; everything else is ConsoleLogger's. */
  override log(message: unknown, ...optionalParams: unknown[]): void {
    if (optionalParams.length === 1 && WIRING_CONTEXTS.has(optionalParams[0] as string)) {
      this.debug(message, optionalParams[0]);
      return;
    }
    const [fields, context] = optionalParams;
    if (this.json && optionalParams.length === 2 && typeof message === 'string' && typeof context === 'string' && isFlat(fields)) {
      if (this.isLevelEnabled('log')) {
        queueStdout(flatLine(message, fields, context));
      }
      return;
    }
    super.log(message, ...optionalParams);
  }

  protected override printAsJson(message: unknown, options: Parameters<ConsoleLogger['printAsJson']>[1]): void {
    const { level, timestamp, message: msg, ...fields } = this.getJsonLogObject(message, options);
    const line = this.stringifyJsonLogObject({ time: new Date(timestamp).toISOString(), level: LEVEL_NAMES[level], msg, ...fields });
    if ((options.writeStreamType ?? 'stdout') === 'stdout') {
      queueStdout(line);
    } else {
      writePendingStdout();
      process.stderr.write(`${line}\n`);
    }
  }
}
