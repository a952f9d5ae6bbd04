import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { EndOfTurnBatch } from '../common';
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
/** The keys ConsoleLogger's own fields take: a caller's field of the same name is dropped, as ConsoleLogger drops it. */
const FRAMEWORK_KEYS = new Set(['level', 'pid', 'timestamp', 'message', 'context']);
/** Nest's start-up wiring, a line for each module loaded and each route mapped: some forty lines, of use when debugging. */
const WIRING_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);
/** Longer strings take ConsoleLogger's path, which truncates a record past a million characters. */
const FLAT_STRING_LIMIT = 1_000;

type FlatFields = Record<string, string | number | boolean | undefined>;

/** Fields JSON.stringify writes as they are, briefly and without fail: no object, no long string. */
function isFlat(fields: unknown): fields is FlatFields {
  if (typeof fields !== 'object' || fields === null || Object.getPrototypeOf(fields) !== Object.prototype) {
    return false;
  }
  for (const key in fields) {
    const value = (fields as Record<string, unknown>)[key];
    const kind = typeof value;
    if (!(kind === 'number' || kind === 'boolean' || kind === 'undefined' || (kind === 'string' && (value as string).length <= FLAT_STRING_LIMIT))) {
      return false;
    }
  }
  return true;
}

/** An access line as logged: its time taken then, its text made when the turn ends. */
interface PendingLine {
  at: number;
  msg: string;
  fields: FlatFields;
  context: string;
}

/** UTC times of one second share their first 20 characters: Date's toISOString, which costs a microsecond, runs once a second. */
let isoSecond = Number.NaN;
let isoSecondPrefix = '';

function isoTime(at: number): string {
  const millisecond = at % 1000;
  const second = at - millisecond;
  if (second !== isoSecond) {
    isoSecond = second;
    isoSecondPrefix = new Date(second).toISOString().slice(0, 20);
  }
  return `${isoSecondPrefix}${String(millisecond).padStart(3, '0')}Z`;
}

function formatFlatLine({ at, msg, fields, context }: PendingLine): string {
  const line: Record<string, unknown> = { time: isoTime(at), level: LEVEL_NAMES.log, msg, pid: process.pid, context };
  for (const key in fields) {
    if (!FRAMEWORK_KEYS.has(key)) {
      line[key] = fields[key];
    }
  }
  return `${JSON.stringify(line)}\n`;
}

/**
 * Access lines of this turn of the event loop, made and written together when it ends: under load a turn
 * answers many requests, and one write for all of them costs what one line's did; made in one run, their
 * text costs a request about a fifth less CPU than made amid its answer (docs/performance.md). Anything
 * else written to stdout writes them first, and so does the process's exit, so no line is reordered or
 * lost to `process.exit`.
 */
const pendingLines = new EndOfTurnBatch<PendingLine>((lines) => {
  let text = '';
  for (const line of lines) {
    text += formatFlatLine(line);
  }
  process.stdout.write(text);
});

process.on('exit', pendingLines.flush);

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
 * It writes synchronously (to files, terminals and pipes), so the lines logged just before `process.exit`
 * are not lost; access lines at the end of the event loop's turn (pendingLines).
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

  /**
   * `log(message, flatFields, context)`, the access line's shape, is made at the end of the turn with one
   * JSON.stringify: the same line as printAsJson's, at about half the cost of ConsoleLogger's general path
   * (argument parsing, then a stringify guarded against cycles and huge values that flat fields cannot have).
   * Its time is taken now; its fields are read then, so a caller passes an object it does not change after.
   */
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const [fields, context, ...rest] = optionalParams;
    if (optionalParams.length === 1 && WIRING_CONTEXTS.has(fields as string)) {
      this.debug(message, fields);
      return;
    }
    if (this.json && typeof message === 'string' && typeof context === 'string' && context !== '' && rest.length === 0 && isFlat(fields)) {
      if (this.isLevelEnabled('log')) {
        pendingLines.add({ at: Date.now(), msg: message, fields, context });
      }
      return;
    }
    super.log(message, ...optionalParams);
  }


  protected override printAsJson(message: unknown, options: Parameters<ConsoleLogger['printAsJson']>[1]): void {
    const { level, timestamp, message: msg, ...fields } = this.getJsonLogObject(message, options);
    const line = this.stringifyJsonLogObject({ time: new Date(timestamp).toISOString(), level: LEVEL_NAMES[level], msg, ...fields });
    pendingLines.flush();
    process[options.writeStreamType ?? 'stdout'].write(`${line}\n`);
  }
}
