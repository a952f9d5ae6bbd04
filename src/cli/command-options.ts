import { parseArgs } from 'node:util';

/** A command called with arguments it cannot use: exit code 2, the message naming the problem, and a pointer to --help unless it says what to type. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly pointsToHelp = true,
  ) {
    super(message);
  }
}

/** A declaration with its `never`, so that the compiler knows the code after a call is not reached. */
export function fail(problem: string): never {
  throw new UsageError(problem);
}

export type Options = Record<string, { type: 'string' | 'boolean' }>;

export interface ParsedOptions {
  positionals: string[];
  /** The value of a string option, undefined when it was not given; the last one when it was given more than once. */
  text: (name: string) => string | undefined;
  /** Every value of a string option that may be repeated, in order. */
  all: (name: string) => string[];
  /** Whether a boolean option was given. */
  flag: (name: string) => boolean;
}

const optionName = (name: string) => `${name.length === 1 ? '-' : '--'}${name}`;

/**
 * The options npm kept for itself: `npm run token --sub x` (no `--`) makes --sub a setting of npm's,
 * which it hands to the script as npm_config_sub, and passes only "x" on. Only string options are
 * looked for: a boolean one such as --force may be npm's own setting, from an .npmrc.
 */
export function optionsTakenByNpm(options: Options, env: NodeJS.ProcessEnv): string[] {
  if (env.npm_lifecycle_event === undefined) {
    return [];
  }
  return Object.keys(options).filter((name) => options[name].type === 'string' && env[`npm_config_${name.replaceAll('-', '_')}`] !== undefined);
}

function failWhenNpmTookOptions(options: Options, env: NodeJS.ProcessEnv): void {
  const taken = optionsTakenByNpm(options, env).map(optionName);
  if (taken.length > 0) {
    const names = taken.length === 1 ? taken[0] : `${taken.slice(0, -1).join(', ')} and ${taken.at(-1)}`;
    throw new UsageError(`npm took ${names} for itself: put -- before the options, as in npm run ${env.npm_lifecycle_event} -- ${taken[0]} ...`, false);
  }
}

/**
 * Options of the form --name value, checked one by one so that every bad one is named: the strict
 * parser calls `--clearance -1` ambiguous and says nothing useful about values. -h and --help are
 * always known and win over anything else given. At most `positionals` arguments besides the options.
 * Run by npm, options npm kept for itself (no `--` before them) are named first.
 */
export function parseOptions(args: string[], options: Options, positionals = 0, env = process.env): { help: true } | ParsedOptions {
  failWhenNpmTookOptions(options, env);
  const parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: false, allowPositionals: true, tokens: true });
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
    all: (name) =>
      parsed.tokens.flatMap((token) => {
        if (token.kind !== 'option' || token.name !== name) {
          return [];
        }
        return token.value === undefined || token.value === '' || token.value.startsWith('--') ? fail(`${optionName(name)} needs a value`) : [token.value];
      }),
    flag: (name) => parsed.values[name] === true,
  };
}
