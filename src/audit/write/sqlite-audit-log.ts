import type { Kysely } from 'kysely';
import type { DB } from '../../database';
import { AuditLog, type Placed } from './audit-log';
import { AuditWriteRepository, type WaitingEvent } from './audit-write.repository';

const alreadyPlaced: Placed = () => Promise.resolve();

/**
 * SQLite: the event is appended to the chain in its decision's transaction. That transaction is one of
 * a commit group, which holds the one writer's lock anyway, so the chain's order costs nothing more and
 * the event has its place once the group commits. Readers poll for new events (the stream's POLL_MS).
 */
export class SqliteAuditLog extends AuditLog {
  constructor(private readonly writes: AuditWriteRepository) {
    super();
  }

  override async append(trx: Kysely<DB>, event: WaitingEvent): Promise<Placed> {
    await this.writes.appendToChain(trx, event);
    return alreadyPlaced;
  }

  override lagMs(): number {
    return 0;
  }

  override isLagging(): boolean {
    return false;
  }

  override onPlacedAnywhere(): () => void {
    return () => undefined;
  }
}
