import { Logger } from '@nestjs/common';
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  Kysely,
  PostgresDialect,
  PostgresIntrospector,
  type PostgresPool,
  type PostgresCursor,
  type PostgresPoolClient,
  type PostgresQueryResult,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';
import { Pool, type PoolConfig, type QueryResult } from 'pg';
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
  const db = new Kysely<DB>({ dialect: new CurrentSchemaDialect({ pool: new DiscardingPool(pool) }) });
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
    return new QueryingClient(
      async (text, parameters) => {
        if (lost) {
          throw lost;
        }
        try {
          return await client.query(text, parameters);
        } catch (error) {
          if (isDatabaseUnavailable(error)) {
            lost = error as Error;
          }
          throw error;
        }
      },
      () => client.release(lost),
    );
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * A pg connection as Kysely's pool client: its queries go through `run`. Kysely asks for a cursor only
 * when its dialect is given a cursor class, which this service's dialects are not.
 */
export class QueryingClient implements PostgresPoolClient {
  constructor(
    private readonly run: (text: string, parameters: unknown[]) => Promise<QueryResult>,
    readonly release: () => void,
  ) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(sql: string | PostgresCursor<R>, parameters: ReadonlyArray<unknown> = []): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') {
      throw new Error('this dialect reads no cursors');
    }
    return this.run(sql, [...parameters]) as Promise<PostgresQueryResult<R>>;
  }
}

/** PostgreSQL as Kysely speaks it, but introspecting only the schema this service works in. */
class CurrentSchemaDialect extends PostgresDialect {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator introspects any schema
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

/**
 * Kysely's introspector reads the tables of every schema in the database and resolves each column's
 * sequence by its schema's name, so a schema that another service (or test) drops meanwhile fails the
 * read, and with it the migrator's start-up check. The migrator needs this schema's tables alone.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  private readonly everySchema: PostgresIntrospector;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator introspects any schema
  constructor(private readonly db: Kysely<any>) {
    this.everySchema = new PostgresIntrospector(db);
  }

  getSchemas(): Promise<SchemaMetadata[]> {
    return this.everySchema.getSchemas();
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ table: string; schema: string; is_view: boolean; column: string; type: string; type_schema: string; not_null: boolean; has_default: boolean; auto_incrementing: boolean }>`
      select c.relname as table, ns.nspname as schema, c.relkind = 'v' as is_view, a.attname as column,
             t.typname as type, tns.nspname as type_schema, a.attnotnull as not_null, a.atthasdef as has_default,
             (a.attidentity <> '' or coalesce(pg_get_expr(d.adbin, d.adrelid) like 'nextval(%', false)) as auto_incrementing
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        join pg_catalog.pg_type t on t.oid = a.atttypid
        join pg_catalog.pg_namespace tns on tns.oid = t.typnamespace
        left join pg_catalog.pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
       where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
       order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.is_view, columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}
