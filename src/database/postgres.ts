import { Logger } from '@nestjs/common';
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { Pool, type PoolConfig } from 'pg';
import type { PostgresLocation } from '../config';
import { isDatabaseUnavailable } from './database-errors';
import type { DB } from './database.types';

/** How busy a PostgreSQL pool is: connections open and checked out, and queries waiting for one. */
export interface PoolUsage {
  max: number;
  inUse: number;
  idle: number;
  waiting: number;
}

/** Kysely does not expose its dialect's pool; the metrics read its figures through this. */
const POOLS = new WeakMap<Kysely<DB>, Pool>();

/** The usage of the PostgreSQL pool behind `db`; undefined on SQLite, which has no pool. */
export function poolUsage(db: Kysely<DB>): PoolUsage | undefined {
  const pool = POOLS.get(db);
  return pool && { max: pool.options.max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/** The settings of the PostgreSQL pool behind `db`, for a connection of its own; undefined on SQLite. */
export function postgresConnectionConfig(db: Kysely<DB>): PoolConfig | undefined {
  return POOLS.get(db)?.options;
}

export function createPostgres({ url, poolSize, timeouts }: PostgresLocation): Kysely<DB> {
  const logger = new Logger('Database');
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: timeouts.idleMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveDelayMs,
    statement_timeout: timeouts.statementMs,
    // A transaction left open by a client that vanished would hold its row locks until TCP noticed.
    idle_in_transaction_session_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
  });
  // pg-pool listens for errors only on idle clients; one that dies while checked out would otherwise
  // end the process with an unhandled 'error' event. Its query fails with the same error.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn(`database connection lost: ${error.message}`)));
  // The pool re-emits an idle client's error, which the client's own listener has already logged.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new DiscardingPool(pool) }) });
  POOLS.set(db, pool);
  return db;
}

/**
 * pg takes back a client whose query timed out while that query is still waiting for an answer that
 * may never come, and would queue the next query behind it. Kysely releases clients without saying
 * why, so this pool releases a client that saw the database unavailable as broken, and pg-pool closes
 * it; until then its further queries (a rollback) fail at once rather than wait out another timeout.
 */
class DiscardingPool implements PostgresPool {
  constructor(private readonly pool: Pool) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let lost: Error | undefined;
    const discarding = {
      async query(text: string, parameters: readonly unknown[]) {
        if (lost) {
          throw lost;
        }
        try {
          return await client.query(text, [...parameters]);
        } catch (error) {
          if (isDatabaseUnavailable(error)) {
            lost = error as Error;
          }
          throw error;
        }
      },
      release: () => client.release(lost),
    };
    // Kysely passes a cursor only when the dialect is given a cursor class, which this one is not.
    return discarding as unknown as PostgresPoolClient;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
