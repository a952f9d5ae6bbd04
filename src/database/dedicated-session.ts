import { Logger } from '@nestjs/common';
import { Kysely, PostgresDialect, type PostgresPool, type RawBuilder, sql } from 'kysely';
import { Client } from 'pg';
import { postgresConnectionConfig, QueryingClient } from './postgres';
import type { DB } from './database.types';

/** The first key of this service's advisory locks; the second names what is locked within the schema. */
const LOCK_SPACE = 0x666c7472;

/**
 * One PostgreSQL connection of its own, outside the pool, for work that a session must hold: a session
 * advisory lock (released by the server when the session ends, however the process died), LISTEN, and
 * transactions that must run on the session holding the lock. Locks and notifications are scoped to the
 * current schema, so services on separate schemas of one database do not see each other's.
 */
export class DedicatedSession {
  /** Kysely over this one connection: one user at a time. */
  readonly db: Kysely<DB>;
  private readonly logger = new Logger('Database');

  private constructor(
    private readonly client: Client,
    private readonly schema: string,
    onLost: (error: Error) => void,
  ) {
    const connection = new QueryingClient(
      (text, parameters) => client.query(text, parameters),
      () => undefined,
    );
    const pool: PostgresPool = { connect: async () => connection, end: async () => undefined };
    this.db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    client.on('error', (error) => {
      this.logger.warn(`dedicated database connection lost: ${error.message}`);
      onLost(error);
    });
    client.on('end', () => onLost(new Error('dedicated database connection ended')));
  }

  /** Opens a session on the database behind `db` (PostgreSQL); `onLost` is told once it breaks. */
  static async open(db: Kysely<DB>, onLost: (error: Error) => void): Promise<DedicatedSession> {
    const config = postgresConnectionConfig(db);
    if (!config) {
      throw new Error('A dedicated session needs PostgreSQL');
    }
    const client = new Client(config);
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      return new DedicatedSession(client, rows[0].schema, onLost);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  /** Takes the session lock named `name` if no other session holds it; held until this session ends. */
  async tryLock(name: string): Promise<boolean> {
    const { rows } = await this.client.query<{ locked: boolean }>('select pg_try_advisory_lock($1, hashtext($2 || $3)) as locked', [
      LOCK_SPACE,
      this.schema,
      `:${name}`,
    ]);
    return rows[0].locked;
  }

  /** Calls `onNotice` with the message of each notification on `channel` sent from this schema. */
  async listen(channel: string, onNotice: (message: string) => void): Promise<void> {
    const prefix = `${this.schema} `;
    this.client.on('notification', (notice) => {
      if (notice.channel === channel && notice.payload?.startsWith(prefix)) {
        onNotice(notice.payload.slice(prefix.length));
      }
    });
    await this.client.query(`listen ${this.client.escapeIdentifier(channel)}`);
  }

  /**
   * An expression that notifies the listeners on `channel` in this schema with `message`, for a
   * statement to return: delivered when its transaction commits, never if it rolls back.
   */
  notification(channel: string, message: string): RawBuilder<unknown> {
    return sql`pg_notify(${channel}, current_schema() || ' ' || ${message})`;
  }

  /** Notifies the listeners on `channel` in this schema with `message`, in a transaction of its own. */
  async notify(channel: string, message: string): Promise<void> {
    await this.client.query("select pg_notify($1, current_schema() || ' ' || $2)", [channel, message]);
  }

  /**
   * Ends the session without waiting for the server to acknowledge: a server gone silent never would.
   * Statements in flight fail; the server releases the session's locks when it sees the connection close.
   */
  close(): void {
    this.client.removeAllListeners('end');
    this.client.end().catch(() => undefined);
  }
}
