import { Injectable, Logger } from '@nestjs/common';
import { Kysely } from 'kysely';
import { pageMeta, pageOffset } from '../common';
import type { DB } from '../database';
import type { AuditEntry } from './audit-entry';
import { AuditRepository } from './audit.repository';
import type { AuditEventPageDto, ListAuditEventsQueryDto } from './dto/audit-event.dto';

@Injectable()
export class AuditService {
  private readonly logger = new Logger('Audit');

  constructor(private readonly repository: AuditRepository) {}

  /**
   * Appends the event to the chain. Pass the transaction when the event must commit together with
   * the change it records; its time is taken when the chain's lock is held.
   */
  async record(entry: AuditEntry, executor?: Kysely<DB>): Promise<void> {
    if (entry.outcome === 'denied') {
      this.logger.warn(
        `denied ${entry.action} (${entry.reason}) actor=${entry.actor?.id ?? '-'} ${entry.origin.method} ${entry.origin.path} request=${entry.origin.requestId}`,
      );
    }
    await this.repository.append(
      {
        action: entry.action,
        outcome: entry.outcome,
        reason: entry.reason ?? null,
        actor: entry.actor?.id ?? null,
        actor_clearance: entry.actor?.clearance ?? null,
        asset_id: entry.assetId ?? null,
        request_id: entry.origin.requestId,
        ip: entry.origin.ip,
        method: entry.origin.method,
        path: entry.origin.path,
      },
      executor,
    );
  }

  async list(query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    const { rows, total } = await this.repository.findPage(
      { outcome: query.outcome, assetId: query.asset_id },
      query.limit,
      pageOffset(query),
    );
    return { events: rows, ...pageMeta(query, total) };
  }
}
