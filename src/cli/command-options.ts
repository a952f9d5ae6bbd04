import { parseArgs } from 'node:util';

/** A command called with arguments it cannot use: the message names the problem and points to --help. */
export class UsageError extends Error {}

export type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;
/** Explicitly typed where it is used, so that the compiler knows it does not return. */
export type Fail = (problem: string) => never;

/**
 * Options of the form --name value, checked one by one so that every bad value is named: the strict
 * parser calls `--clearance -1` ambiguous and says nothing useful about values. -h and --help are
 * always known.
 */
export function parseOptions(command: string, args: string[], options: Options) {
  const fail: Fail = (problem) => {
    throw new UsageError(`${problem}. Run npm run ${command} -- --help for the options`);
  };
  const { values, positionals } = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: false, allowPositionals: true });
  const unknown = Object.keys(values).find((name) => name !== 'help' && !(name in options));
  if (unknown !== undefined) {
    fail(`Unknown option ${unknown.length === 1 ? '-' : '--'}${unknown}`);
  }
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      fail(`--${name} needs a value`);
    }
    return value;
  };
  return { help: values.help === true, positionals, text, fail };
}
