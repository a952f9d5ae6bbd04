import type { Kysely } from 'kysely';
import type { DB } from '../../database';
import { AuditLog, type Placed } from './audit-log';
import { AuditWriteRepository, type WaitingEvent } from './audit-write.repository';

/**
 * SQLite: the event is appended to the chain in its decision's transaction. That transaction is one of
 * a commit group, which holds the one writer's lock anyway, so the chain's order costs nothing more and
 * the event has its place once the group commits. What this process placed is told to its listeners once
 * committed; what another process placed in the same file is not: readers also poll (the stream's POLL_MS).
 */
export class SqliteAuditLog extends AuditLog {
  private readonly placedListeners = new Set<() => void>();

  constructor(private readonly writes: AuditWriteRepository) {
    super();
  }

  override async append(trx: Kysely<DB>, events: readonly WaitingEvent[]): Promise<Placed> {
    await this.writes.appendAllToChain(trx, events);
    return () => this.placed();
  }

  /** Called once the event's transaction has committed (AuditService runs it after the commit). */
  private placed(): Promise<void> {
    this.placedListeners.forEach((listener) => listener());
    return Promise.resolve();
  }

  override lagMs(): number {
    return 0;
  }

  override isLagging(): boolean {
    return false;
  }

  override onPlacedAnywhere(listener: () => void): () => void {
    this.placedListeners.add(listener);
    return () => this.placedListeners.delete(listener);
  }
}
