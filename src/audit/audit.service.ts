import { Injectable, Logger } from '@nestjs/common';
import type { Compilable, Kysely } from 'kysely';
import { Span } from '../common';
import {
  type Denial,
  type DenialRecorder,
  pageNumber,
  pageOffset,
  RateLimitedError,
  type RequestOrigin,
  ServiceUnavailableError,
  StorageUnavailableError,
} from '../common';
import { type DB, DatabaseHealth, TransactionRunner } from '../database';
import { Metrics } from '../observability';
import { DenialLimiter } from '../rate-limit';
import type { AuditEntry, DecisionDetails } from './audit-entry';
import { decodeAuditCursor, encodeAuditCursor } from './audit-cursor';
import { type AuditEventFilter, AuditRepository, shownEvent, type WaitingEvent } from './audit.repository';
import { AUDIT_ACTIONS } from './audit.vocabulary';
import { AuditSequencer, type Placed } from './audit-sequencer';
import type { AuditEventPageDto, AuditFilterQueryDto, ListAuditEventsQueryDto } from './dto/audit-event.dto';
import { AUDIT_FIELD_LIMITS, storable } from './storable';

/** The details as stored and hashed: JSON with the keys in this order (request_id only when given), each value storable. */
export function storedDetails({ request_id, reason, authorized_by }: DecisionDetails): string {
  const decision = { reason: storable(reason, AUDIT_FIELD_LIMITS.detail), authorized_by: storable(authorized_by, AUDIT_FIELD_LIMITS.detail) };
  return JSON.stringify(request_id === undefined ? decision : { request_id: storable(request_id, AUDIT_FIELD_LIMITS.detail), ...decision });
}

/** The event of a decision, as it waits for its place; the statement that writes it gives it the database's time. */
function toWaitingEvent({ action, outcome, reason, actor, origin, details }: AuditEntry): WaitingEvent {
  const optional = (value: string | null, limit: number) => (value === null ? null : storable(value, limit));
  return {
    action,
    outcome,
    reason: reason ?? null,
    actor: actor ? storable(actor.id, AUDIT_FIELD_LIMITS.actor) : null,
    actor_clearance: actor?.clearance ?? null,
    asset_id: optional(origin.assetId, AUDIT_FIELD_LIMITS.assetId),
    request_id: storable(origin.requestId, AUDIT_FIELD_LIMITS.requestId),
    ip: optional(origin.ip, AUDIT_FIELD_LIMITS.ip),
    method: storable(origin.method, AUDIT_FIELD_LIMITS.method),
    path: storable(origin.path, AUDIT_FIELD_LIMITS.path),
    details: details ? storedDetails(details) : null,
  };
}

/** The query's filters, its instants as stored (ISO 8601 UTC). */
export function auditFilterOf(query: AuditFilterQueryDto): AuditEventFilter {
  const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
  return { actor: query.actor, action: query.action, outcome: query.outcome, asset_id: query.asset_id, since: instant(query.since), until: instant(query.until) };
}

@Injectable()
export class AuditService implements DenialRecorder {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly repository: AuditRepository,
    private readonly limiter: DenialLimiter,
    private readonly transactions: TransactionRunner,
    private readonly metrics: Metrics,
    private readonly sequencer: AuditSequencer,
    private readonly health: DatabaseHealth,
  ) {}

  /**
   * Writes the event of a decision and resolves once it has its place in the chain, committed, so a
   * client that reads the trail after its answer finds it there. Called inside a TransactionRunner.run,
   * the event joins that transaction and commits with the change it records, and the run resolves
   * only once the event is placed; elsewhere its one statement commits by itself (in a commit group on
   * SQLite). A failure is a 503: the decision it records must not be answered without it.
   */
  async record(entry: AuditEntry): Promise<void> {
    const started = performance.now();
    const event = toWaitingEvent(entry);
    await this.append(entry, async (executor) => {
      const placed = await this.sequencer.write(event, executor);
      this.transactions.afterCommit(() => this.awaitPlace(entry, placed, started));
    });
  }

  /**
   * Compiles, once, a change recorded with its decision's event: `change` builds one statement that
   * changes at most one row and returns it. What it returns applies the change and, when it changed a
   * row, writes `entry` as that change's event, committed together (on PostgreSQL in one statement, one
   * round trip); it resolves with the row once the event has its place in the chain, or with undefined,
   * and no event, when nothing changed. Called inside a TransactionRunner.run, both join that
   * transaction, and the wait for the place comes after its commit. A failure to write both is a 503, as
   * for record.
   */
  recordedChange<Values extends object, Row extends object>(
    change: (values: Values) => Compilable<Row>,
  ): (values: Values, entry: AuditEntry) => Promise<Row | undefined> {
    const changeWithEvent = this.sequencer.changeWithEvent(change);
    return (values, entry) => {
      const started = performance.now();
      return this.append(entry, async (executor) => {
        const written = await changeWithEvent(values, toWaitingEvent(entry), executor);
        if (written) {
          this.transactions.afterCommit(() => this.awaitPlace(entry, written.placed, started));
        }
        return written?.row;
      });
    };
  }

  /**
   * Runs the statement that writes an event (with its change, if any) and the wait for its place, as
   * one span of the request's trace.
   */
  @Span<Parameters<AuditService['append']>>('audit.append', (entry) => ({ attributes: { 'audit.action': entry.action, 'audit.outcome': entry.outcome } }))
  private append<T>(entry: AuditEntry, statement: (executor: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.unavailableOnFailure(entry, this.transactions.runStatement(statement));
  }

  private async awaitPlace(entry: AuditEntry, placed: Placed, started: number): Promise<void> {
    await this.unavailableOnFailure(entry, placed());
    this.metrics.auditEventWritten(entry.action, entry.outcome, (performance.now() - started) / 1000);
  }

  private async unavailableOnFailure<T>(entry: AuditEntry, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof ServiceUnavailableError) {
        throw error;
      }
      this.logger.error(`audit event not written: ${error instanceof Error ? error.message : String(error)}`, { request_id: entry.origin.requestId });
      if (this.health.failedToStore(error)) {
        throw new StorageUnavailableError('The service cannot store data at the moment; nothing was changed');
      }
      throw new ServiceUnavailableError('The service is temporarily unavailable');
    }
  }

  /**
   * A client past its denial limit is answered 429 instead, and only its first 429 of the window is
   * recorded (reason RATE_LIMITED), so a flood adds a bounded number of rows.
   */
  async recordDenial(denial: Denial, origin: RequestOrigin): Promise<void> {
    this.logger.warn(`denied ${denial.action} (${denial.reason})`, { request_id: origin.requestId, actor: denial.actor?.id });
    const verdict = await this.limiter.count(origin.ip ?? 'unknown');
    if (denial.action === AUDIT_ACTIONS.decommission) {
      this.metrics.decommissionDenied(verdict.limited ? 'RATE_LIMITED' : denial.reason);
    }
    const { assetId, ...decision } = denial;
    const refused = assetId === undefined ? origin : { ...origin, assetId };
    if (!verdict.limited) {
      await this.record({ ...decision, outcome: 'denied', origin: refused });
      return;
    }
    if (verdict.firstInWindow) {
      await this.record({ ...decision, reason: 'RATE_LIMITED', outcome: 'denied', origin: refused });
    }
    throw new RateLimitedError(verdict.retryAfterSeconds);
  }

  /**
   * With cursor, a keyset page: counts nothing and costs the same at any depth. Otherwise the offset
   * page (`page`, 1 by default) with total_count, whose cost grows with the depth. Both carry next_cursor.
   */
  async list(query: ListAuditEventsQueryDto): Promise<AuditEventPageDto> {
    const filter = auditFilterOf(query);
    const beforeId = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
    const [{ rows, more }, total] = await Promise.all([
      this.repository.findPage(filter, beforeId === undefined ? { limit: query.limit, offset: pageOffset(query) } : { limit: query.limit, beforeId }),
      beforeId === undefined ? this.repository.countMatching(filter) : null,
    ]);
    return {
      events: rows.map(shownEvent),
      total_count: total,
      page: beforeId === undefined ? pageNumber(query) : null,
      per_page: query.limit,
      next_cursor: more ? encodeAuditCursor(rows[rows.length - 1].id) : null,
    };
  }
}
