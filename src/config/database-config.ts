import { dirname, resolve } from 'node:path';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { IsIntInRange, ToInteger } from '../common';
import { ConfigurationError, dataDirectory, readVariables } from './environment';

export interface SqliteLocation {
  dialect: 'sqlite';
  /** A file path, or `:memory:`. */
  path: string;
  /**
   * Set when the file is in the data directory, the service's own, which is created when missing. Any
   * other directory must exist: a mistyped path is refused, not served as a new, empty database.
   */
  createsDirectory?: boolean;
}

export interface PostgresLocation {
  dialect: 'postgres';
  url: string;
  poolSize: number;
  timeouts: PostgresTimeouts;
}

/** Bounds on every wait for PostgreSQL, so a silent or overloaded server turns into errors, not hangs. */
export interface PostgresTimeouts {
  /** Server side: the longest one statement may run, and the longest a transaction may sit idle. */
  statementMs: number;
  /** Client side: the longest to wait for an answer, which a server gone silent never sends. */
  queryMs: number;
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** An unused pooled connection is closed after this. */
  idleMs: number;
  /** Idle time before the first TCP keepalive probe on a connection. */
  keepAliveDelayMs: number;
}

export type DatabaseLocation = SqliteLocation | PostgresLocation;

/** The database, as the server and the database commands (db:*, audit:*) read it. */
export interface DatabaseConfig {
  /** Where the embedded database and the generated token secret live by default. */
  dataDir: string;
  database: DatabaseLocation;
  /** Off when deployments migrate with `npm run db:migrate` before starting instances. */
  migrateOnStart: boolean;
}

/** The server's own check of the database's clock; the commands do not read it. */
export interface DatabaseClockConfig {
  /** PostgreSQL: readiness fails while this instance's clock differs from the database's by more than this. */
  clockSkewMaxMs: number;
}

export class DatabaseVariables {
  @IsOptional()
  @Matches(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, {
    message: 'DATABASE_URL must look like sqlite:<path> or postgres://user@host:5432/database',
  })
  DATABASE_URL?: string;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1, 100)
  DATABASE_POOL_SIZE?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  DATABASE_STATEMENT_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 600_000)
  DATABASE_QUERY_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 60_000)
  DATABASE_CONNECT_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1_000, 3_600_000)
  DATABASE_IDLE_TIMEOUT_MS?: number;

  @IsOptional()
  @ToInteger()
  @IsIntInRange(1_000, 3_600_000)
  DATABASE_KEEPALIVE_DELAY_MS?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  MIGRATE_ON_START?: string;
}

export class DatabaseClockVariables {
  @IsOptional()
  @ToInteger()
  @IsIntInRange(100, 3_600_000)
  CLOCK_SKEW_MAX_MS?: number;
}

function postgresTimeouts(vars: DatabaseVariables): PostgresTimeouts {
  const statementMs = vars.DATABASE_STATEMENT_TIMEOUT_MS ?? 5_000;
  // The server cancels a slow statement and says so; the client-side limit is for a server that says nothing.
  const queryMs = vars.DATABASE_QUERY_TIMEOUT_MS ?? statementMs + 1_000;
  if (queryMs <= statementMs) {
    throw new ConfigurationError(
      'Invalid configuration: DATABASE_QUERY_TIMEOUT_MS must be greater than DATABASE_STATEMENT_TIMEOUT_MS',
    );
  }
  return {
    statementMs,
    queryMs,
    connectMs: vars.DATABASE_CONNECT_TIMEOUT_MS ?? 3_000,
    idleMs: vars.DATABASE_IDLE_TIMEOUT_MS ?? 10_000,
    keepAliveDelayMs: vars.DATABASE_KEEPALIVE_DELAY_MS ?? 10_000,
  };
}

function databaseLocation(vars: DatabaseVariables, dataDir: string, cwd: string): DatabaseLocation {
  const url = vars.DATABASE_URL;
  if (url?.startsWith('postgres')) {
    return { dialect: 'postgres', url, poolSize: vars.DATABASE_POOL_SIZE ?? 20, timeouts: postgresTimeouts(vars) };
  }
  const path = url?.slice('sqlite:'.length);
  if (path === ':memory:') {
    return { dialect: 'sqlite', path };
  }
  const file = path === undefined ? resolve(dataDir, 'registry.sqlite') : resolve(cwd, path);
  return { dialect: 'sqlite', path: file, createsDirectory: dirname(file) === dataDir };
}

export function databaseConfig(vars: DatabaseVariables, cwd: string): DatabaseConfig {
  const dataDir = dataDirectory(cwd);
  return { dataDir, database: databaseLocation(vars, dataDir, cwd), migrateOnStart: vars.MIGRATE_ON_START !== 'false' };
}

export function databaseClockConfig(vars: DatabaseClockVariables): DatabaseClockConfig {
  return { clockSkewMaxMs: vars.CLOCK_SKEW_MAX_MS ?? 5_000 };
}

/** What the database commands (db:*, audit:*) read: the database, and nothing of tokens or HTTP. */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): DatabaseConfig {
  const [vars] = readVariables(env, [DatabaseVariables]);
  return databaseConfig(vars, cwd);
}
