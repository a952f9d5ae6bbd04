import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Kysely } from 'kysely';
import {
  ApiError,
  type Denial,
  type DenialRecorder,
  RateLimitedError,
  type RequestOrigin,
  ServiceUnavailableError,
  Span,
  UNAVAILABILITY_CHECK,
  type UnavailabilityCheck,
} from '../../common';
import { type DB, TransactionRunner } from '../../database';
import { Metrics } from '../../observability';
import { DenialLimiter } from '../../rate-limit';
import { AUDIT_ACTIONS } from '../audit.vocabulary';
import type { AuditEntry, DecisionDetails } from './audit-entry';
import { AuditLog } from './audit-log';
import type { WaitingEvent } from './audit-write.repository';
import { AUDIT_FIELD_LIMITS, storable } from '../trail';

/** The details as stored and hashed: JSON with the keys in this order (request_id and batch_id only when given), each value storable. */
export function storedDetails(details: DecisionDetails): string {
  if ('webhook_id' in details) {
    return JSON.stringify({ webhook_id: storable(details.webhook_id, AUDIT_FIELD_LIMITS.detail), url: storable(details.url, AUDIT_FIELD_LIMITS.detail) });
  }
  const { request_id, batch_id, reason, authorized_by } = details;
  const decision = { reason: storable(reason, AUDIT_FIELD_LIMITS.detail), authorized_by: storable(authorized_by, AUDIT_FIELD_LIMITS.detail) };
  const request = request_id === undefined ? {} : { request_id: storable(request_id, AUDIT_FIELD_LIMITS.detail) };
  const batch = batch_id === undefined ? {} : { batch_id: storable(batch_id, AUDIT_FIELD_LIMITS.detail) };
  return JSON.stringify({ ...request, ...batch, ...decision });
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

/** Writes every access decision to the audit trail: allowed ones inside their change's transaction, denials on their own. */
@Injectable()
export class AuditService implements DenialRecorder {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly log: AuditLog,
    private readonly transactions: TransactionRunner,
    private readonly limiter: DenialLimiter,
    private readonly metrics: Metrics,
    @Inject(UNAVAILABILITY_CHECK) private readonly unavailability: UnavailabilityCheck,
  ) {
    metrics.readAuditLagWith(() => log.lagMs() / 1000);
  }

  /**
   * Appends the event of a decision inside `trx`, the transaction of the change it records, so the two
   * commit or fail together; the transaction's run resolves only once the event has its place in the
   * chain, so a client that reads the trail after its answer finds it there.
   */
  @Span<Parameters<AuditService['append']>>('audit.append', (_trx, entry) => ({ attributes: { 'audit.action': entry.action, 'audit.outcome': entry.outcome } }))
  append(trx: Kysely<DB>, entry: AuditEntry): Promise<void> {
    return this.write(trx, [entry]);
  }

  /**
   * append for the events of several decisions made together (a batch), written in one round of the
   * audit log's statements, in consecutive places of the chain in the order given where the engine
   * places them at once (SQLite).
   */
  @Span<Parameters<AuditService['appendAll']>>('audit.append', (_trx, entries) => ({ attributes: { 'audit.events': entries.length } }))
  appendAll(trx: Kysely<DB>, entries: readonly AuditEntry[]): Promise<void> {
    return this.write(trx, entries);
  }

  private async write(trx: Kysely<DB>, entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) {
      return;
    }
    const started = performance.now();
    const [first] = entries;
    const placed = await this.unavailableOnFailure(first, this.log.append(trx, entries.map(toWaitingEvent)));
    this.transactions.afterCommit(async () => {
      await this.unavailableOnFailure(first, placed());
      const seconds = (performance.now() - started) / 1000;
      entries.forEach((entry) => this.metrics.auditEventWritten(entry.action, entry.outcome, seconds));
    });
  }

  /** A decision is never answered without its event: a failure to write it is a 503, whatever the cause. */
  private async unavailableOnFailure<T>(entry: AuditEntry, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof ApiError) {
        throw error;
      }
      this.logger.error(`audit event not written: ${error instanceof Error ? error.message : String(error)}`, { request_id: entry.origin.requestId });
      throw this.unavailability(error) ?? new ServiceUnavailableError('The service is temporarily unavailable');
    }
  }

  /** The event of a decision that changes nothing else, committed by itself (in a commit group on SQLite). */
  record(entry: AuditEntry): Promise<void> {
    return this.transactions.runStatement((executor) => this.append(executor, entry));
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
}
