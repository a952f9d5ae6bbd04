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
 * are not lost.
 */
export class AppLogger extends ConsoleLogger {
  constructor({ level, json }: AppLoggerOptions) {
    super({
      json,
      colors: !json,
      flattenParams: true,
      logLevels: LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(level) + 1).map((name) => NEST_LEVELS[name]),
    });
  }

  /** Nest's wiring lines go to debug; everything else is ConsoleLogger's. */
  override log(message: unknown, ...optionalParams: unknown[]): void {
    if (optionalParams.length === 1 && WIRING_CONTEXTS.has(optionalParams[0] as string)) {
      this.debug(message, optionalParams[0]);
      return;
    }
    super.log(message, ...optionalParams);
  }

  protected override printAsJson(message: unknown, options: Parameters<ConsoleLogger['printAsJson']>[1]): void {
    const { level, timestamp, message: msg, ...fields } = this.getJsonLogObject(message, options);
    const line = this.stringifyJsonLogObject({ time: new Date(timestamp).toISOString(), level: LEVEL_NAMES[level], msg, ...fields });
    process[options.writeStreamType ?? 'stdout'].write(`${line}\n`);
  }
}
