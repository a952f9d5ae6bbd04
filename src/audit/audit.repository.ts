import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { type AuditEventRow, type AuditOutcome, type DB, type NewAuditEvent, type Page, selectPage } from '../database';

export interface AuditEventFilter {
  outcome?: AuditOutcome;
  assetId?: string;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(event: NewAuditEvent, executor: Kysely<DB> = this.db): Promise<void> {
    await executor.insertInto('audit_events').values(event).execute();
  }

  findPage(filter: AuditEventFilter, limit: number, offset: number): Promise<Page<AuditEventRow>> {
    let events = this.db.selectFrom('audit_events');
    if (filter.outcome) {
      events = events.where('outcome', '=', filter.outcome);
    }
    if (filter.assetId) {
      events = events.where('asset_id', '=', filter.assetId);
    }
    return selectPage(events, (query) => query.selectAll().orderBy('id', 'desc'), { limit, offset });
  }
}
