import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../../common';
import { AUDIT_CONFIG, type AuditConfig } from '../../config';
import { Metrics } from '../../observability';
import type { ChainVerification } from './audit-chain.verifier';
import { ChainVerificationThread } from './chain-verification-thread';
import { TrailRepository } from './trail.repository';

export const VERIFICATIONS_BUSY_MESSAGE = 'Too many audit chain verifications are running on this instance; retry later';
/** A refused client is told to wait as long as the last walk took, within 1 s and this. */
export const RETRY_AFTER_MAX_SECONDS = 60;

/** Every walk this instance may run is running, each of another trail head. */
export class VerificationsBusyError extends ApiError {
  readonly status = HttpStatus.SERVICE_UNAVAILABLE;
  readonly errorCode = 'AUDIT_VERIFICATIONS_BUSY';
  override readonly headers: Readonly<Record<string, string>>;

  constructor(retryAfterSeconds: number) {
    super(VERIFICATIONS_BUSY_MESSAGE);
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
  }
}

/**
 * What one GET /v1/audit/verify may make the instance do. A walk of the chain is a thread with a heap
 * of its own and, on PostgreSQL, a connection of its own, for as long as the trail takes to read: so a
 * request that finds a walk of the same trail head running waits for that walk and gets its answer, and
 * a walk of another head starts only while fewer than AUDIT_VERIFICATIONS_MAX run; past that it is
 * refused at once (503 with Retry-After), never queued.
 */
@Injectable()
export class ChainVerificationGate {
  /** The walk running for each trail head (its last event and hash). */
  private readonly walks = new Map<string, Promise<ChainVerification>>();
  /** How long the last walk took: what a refused client is told to wait, in whole seconds. */
  private lastWalkSeconds = 1;

  constructor(
    @Inject(AUDIT_CONFIG) private readonly config: AuditConfig,
    private readonly thread: ChainVerificationThread,
    private readonly trail: TrailRepository,
    private readonly metrics: Metrics,
  ) {}

  async verify(): Promise<ChainVerification> {
    const head = await this.trail.findChainHead();
    const key = `${head?.last_event_id ?? 0} ${head?.last_hash ?? ''}`;
    const running = this.walks.get(key);
    if (running) {
      this.metrics.auditVerificationAsked('joined');
      return running;
    }
    if (this.walks.size >= this.config.verificationsMax) {
      this.metrics.auditVerificationAsked('refused');
      throw new VerificationsBusyError(this.lastWalkSeconds);
    }
    this.metrics.auditVerificationAsked('started');
    const started = performance.now();
    const walk = this.thread.verify().finally(() => {
      this.walks.delete(key);
      this.metrics.auditVerificationEnded();
      this.lastWalkSeconds = Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(1, Math.ceil((performance.now() - started) / 1000)));
    });
    this.walks.set(key, walk);
    return walk;
  }
}
