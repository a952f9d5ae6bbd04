import { loadDatabaseConfig } from '../config';
import { describeLocation, isDatabaseUnavailable, isStatementTimeout } from '../database';
import { UsageError } from './command-options';

export interface Command<Args extends object> {
  /** The npm script that runs it, as the pointer to --help names it. */
  script: string;
  /** The first argument that picks this command among the script's, as in `audit:witness -- serve`. */
  subcommand?: string;
  usage: string;
  /** Reads the arguments, refusing bad ones with a UsageError; `{ help: true }` asks for the usage text. */
  parse: (args: string[]) => Args | { help: true };
  run: (args: Args) => Promise<void>;
}

/** What a file error means to whoever typed the path. */
const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or folder. Check the path',
  EACCES: 'permission denied. Check the permissions of the file and its folder',
  EPERM: 'permission denied. Check the permissions of the file and its folder',
  EISDIR: 'is a folder. Name a file',
  ENOTDIR: 'a part of the path is not a folder. Check the path',
  ENOSPC: 'no space left on the device. Free some, or write elsewhere',
};

/** Why a database or the service cannot be reached, by the code of the error that says so. */
const UNREACHABLE_REASONS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'it did not answer in time',
  EHOSTUNREACH: 'its host cannot be reached',
  ENETUNREACH: 'its network cannot be reached',
  ENOTFOUND: 'its host name is not known',
  EAI_AGAIN: 'its host name could not be looked up',
  '28P01': 'it refused the user name or password',
  '28000': 'it refused the user name or password',
  '57P03': 'it is starting up',
  '53300': 'it has no free connection',
  SQLITE_CANTOPEN: 'the file cannot be opened',
  // fetch()'s, from undici and TLS
  UND_ERR_CONNECT_TIMEOUT: 'it did not answer in time',
  UND_ERR_HEADERS_TIMEOUT: 'it did not answer in time',
  UND_ERR_SOCKET: 'it closed the connection without an answer',
  ECONNABORTED: 'the connection was closed',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed and not trusted here',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is not trusted here',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate is not trusted here',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
  EPROTO: 'it does not speak TLS there (http:// instead of https://?)',
};

/**
 * The code of an error, or of the first of an AggregateError's (a host name with several addresses)
 * that has one, or of its cause (fetch() fails with "fetch failed", its cause says why).
 */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    return code;
  }
  if (error instanceof AggregateError) {
    return error.errors.map(codeOf).find((inner) => inner !== undefined);
  }
  return error instanceof Error && error.cause !== undefined ? codeOf(error.cause) : undefined;
}

/** Why a connection failed, in words: "the connection was refused", "it did not answer in time". */
export function unreachableReason(error: unknown): string {
  const code = codeOf(error);
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || /timeout/i.test(error.message));
  return (code === undefined ? undefined : UNREACHABLE_REASONS[code]) ?? (timedOut ? 'it did not answer in time' : 'it is unavailable');
}

function unreachableDatabase(error: Error): string {
  // The commands read DATABASE_URL this way too, so this names the database they tried.
  const where = describeLocation(loadDatabaseConfig().database);
  return `Cannot reach the database at ${where}: ${unreachableReason(error)}. Check DATABASE_URL, and that the database is up and reachable from here`;
}

/** The database answered, but cancelled a query of the command's that ran past the bound a request gets. */
function statementTimedOut(): string {
  const { database } = loadDatabaseConfig();
  const bound = database.dialect === 'postgres' ? ` (${database.timeouts.statementMs} ms)` : '';
  return (
    `The database at ${describeLocation(database)} cancelled a query that ran longer than DATABASE_STATEMENT_TIMEOUT_MS allows${bound}. ` +
    'Run the command again with a longer one, e.g. DATABASE_STATEMENT_TIMEOUT_MS=60000'
  );
}

/**
 * One line for a failure someone can fix (a file, the database, the configuration), saying what to do;
 * the message alone for anything else. Never a stack trace.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) {
    return String(error);
  }
  if (isStatementTimeout(error)) {
    return statementTimedOut();
  }
  if (isDatabaseUnavailable(error)) {
    return unreachableDatabase(error);
  }
  const { code, path } = error as NodeJS.ErrnoException;
  const problem = code === undefined ? undefined : FILE_PROBLEMS[code];
  if (problem !== undefined && path !== undefined) {
    return `${path}: ${problem} (a relative one starts from ${process.cwd()})`;
  }
  return error.message;
}

/**
 * Every command's one way: --help prints the usage (exit code 0), a bad argument one line naming it
 * (exit code 2), a failure one line (exit code 1). A command that fails otherwise sets process.exitCode.
 */
export function runCommand<Args extends object>(command: Command<Args>): void {
  let args: Args | { help: true };
  try {
    args = command.parse(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) {
      throw error;
    }
    const help = `npm run ${command.script} -- ${command.subcommand ? `${command.subcommand} ` : ''}--help`;
    process.stderr.write(error.pointsToHelp ? `${error.message}. Run ${help} for the options\n` : `${error.message}\n`);
    process.exit(2);
  }
  if ('help' in args) {
    process.stdout.write(`${command.usage}\n`);
    return;
  }
  command.run(args).catch((error: unknown) => {
    process.stderr.write(`${describeFailure(error)}\n`);
    process.exit(1);
  });
}
