import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { AuditEventRow, AuditOutcome, DB, NewAuditEvent } from '../database';

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

  async findPage(filter: AuditEventFilter, limit: number, offset: number): Promise<{ rows: AuditEventRow[]; total: number }> {
    let query = this.db.selectFrom('audit_events');
    if (filter.outcome) {
      query = query.where('outcome', '=', filter.outcome);
    }
    if (filter.assetId) {
      query = query.where('asset_id', '=', filter.assetId);
    }
    const [rows, { total }] = await Promise.all([
      query.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total) };
  }
}
