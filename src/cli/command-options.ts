import { parseArgs } from 'node:util';

/** A command called with arguments it cannot use: exit code 2, the message naming the problem, and a pointer to --help. */
export class UsageError extends Error {}

/** A declaration with its `never`, so that the compiler knows the code after a call is not reached. */
export function fail(problem: string): never {
  throw new UsageError(problem);
}

export type Options = Record<string, { type: 'string' | 'boolean' }>;

export interface ParsedOptions {
  positionals: string[];
  /** The value of a string option, undefined when it was not given. */
  text: (name: string) => string | undefined;
  /** Whether a boolean option was given. */
  flag: (name: string) => boolean;
}

const optionName = (name: string) => `${name.length === 1 ? '-' : '--'}${name}`;

/**
 * Options of the form --name value, checked one by one so that every bad one is named: the strict
 * parser calls `--clearance -1` ambiguous and says nothing useful about values. -h and --help are
 * always known and win over anything else given. At most `positionals` arguments besides the options.
 */
export function parseOptions(args: string[], options: Options, positionals = 0): { help: true } | ParsedOptions {
  const parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: false, allowPositionals: true });
  if (parsed.values.help === true) {
    return { help: true };
  }
  for (const [name, value] of Object.entries(parsed.values)) {
    if (!(name in options)) {
      fail(`Unknown option ${optionName(name)}`);
    }
    // `--sub --clearance 7` would otherwise take "--clearance" as the officer's name.
    if (options[name].type === 'string' && (typeof value !== 'string' || value === '' || value.startsWith('--'))) {
      fail(`${optionName(name)} needs a value`);
    }
    if (options[name].type === 'boolean' && value !== true) {
      fail(`${optionName(name)} takes no value`);
    }
  }
  if (parsed.positionals.length > positionals) {
    fail(`Unexpected argument "${parsed.positionals[positionals]}"`);
  }
  return {
    positionals: parsed.positionals,
    text: (name) => parsed.values[name] as string | undefined,
    flag: (name) => parsed.values[name] === true,
  };
}
