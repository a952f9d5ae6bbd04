import type { Kysely } from 'kysely';
import type { DB } from '../../database';
import type { WaitingEvent } from './audit-write.repository';

/** Resolves once an appended event has its place in the chain, committed. */
export type Placed = () => Promise<void>;

/**
 * Where a decision's event is appended, inside the decision's own transaction, so the two commit or
 * fail together. One implementation per engine, chosen once at start-up (audit-log.provider.ts):
 * SQLite chains the event at once (SqliteAuditLog); PostgreSQL queues it for the one sequencer of the
 * database (PostgresAuditLog), so decisions share no lock (docs/audit-write-path.md).
 */
export abstract class AuditLog {
  /**
   * Writes the events with `trx`, to take consecutive places in the chain in the order given where the
   * engine orders them at once (SQLite); what it returns waits, after the commit, for every one's place.
   */
  abstract append(trx: Kysely<DB>, events: readonly WaitingEvent[]): Promise<Placed>;

  /** How long the oldest of this instance's events still waiting for its place has waited. */
  abstract lagMs(): number;

  /** True when that wait is longer than readiness allows. */
  abstract isLagging(): boolean;

  /**
   * Calls `listener` whenever events were placed in the chain and committed, as far as the engine tells:
   * by any instance on PostgreSQL (NOTIFY), by this process on SQLite; returns the undo.
   */
  abstract onPlacedAnywhere(listener: () => void): () => void;
}
