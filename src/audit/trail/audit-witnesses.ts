import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely } from 'kysely';
import { ServiceUnavailableError } from '../../common';
import { AUDIT_CONFIG, type AuditConfig, DATABASE_CONFIG, type DatabaseConfig, WITNESS_CONFIG, type WitnessConfig } from '../../config';
import { type DB, DedicatedSession } from '../../database';
import { Metrics } from '../../observability';
import { AuditTree } from './audit-tree';
import { type NoteVerifier, splitNote } from './checkpoint-note';
import { cosignatureTime, parseCosignerKey } from './cosignature';
import { addCheckpoint } from './witness-client';
import { WitnessRepository } from './witness.repository';

/** The advisory lock whose holder alone asks the witnesses (PostgreSQL, several instances). */
const WITNESSES_LOCK = 'audit-witnesses';
/** How often the asking instance looks for a new checkpoint: at most this long after it is signed, it goes out. */
const LOOK_MS = 100;
/** A witness that failed waits this long before the next attempt, doubled each failure, up to RETRY_CAP_MS. */
const RETRY_BASE_MS = 500;
const RETRY_CAP_MS = 60_000;

/** What this instance knows of one witness while it asks them. */
interface Witness {
  url: string;
  key: string;
  verifier: NoteVerifier;
  /** The size it holds, as it last said (a cosignature or a 409); undefined until read from the database. */
  size?: number;
  /** When it last cosigned that size, POSIX seconds. */
  cosignedAt: number;
  failures: number;
  retryAt: number;
  /** The request under way, if any: a witness slow to answer holds up no other. */
  asking?: Promise<void>;
}

/** Outcomes counted in fleet_registry_audit_witness_requests_total. */
type WitnessOutcome = 'cosigned' | 'conflict' | 'refused' | 'invalid' | 'unreachable';

/**
 * Collects witness cosignatures of the audit checkpoints (C2SP tlog-witness): sends each new checkpoint
 * to every witness with a consistency proof from the size it last cosigned, checks and stores what it
 * returns, and asks again for a fresh cosignature of an unchanged one every quarter of
 * AUDIT_WITNESS_MAX_AGE. One instance asks at a time: on PostgreSQL, the holder of an advisory lock.
 * GET /v1/audit/checkpoint then serves the latest checkpoint that reached AUDIT_WITNESS_QUORUM.
 */
@Injectable()
export class AuditWitnesses implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditWitnesses');
  private readonly witnesses: Witness[];
  private readonly stopping = new AbortController();
  private readonly startedAt = Date.now();
  private asking?: Promise<void>;
  private session?: DedicatedSession;
  private recordedSize?: number;

  constructor(
    private readonly tree: AuditTree,
    private readonly repository: WitnessRepository,
    private readonly metrics: Metrics,
    private readonly db: Kysely<DB>,
    @Inject(WITNESS_CONFIG) private readonly config: WitnessConfig,
    @Inject(AUDIT_CONFIG) private readonly audit: AuditConfig,
    @Inject(DATABASE_CONFIG) private readonly database: DatabaseConfig,
  ) {
    this.witnesses = config.witnesses.map(({ url, key }) => ({ url, key, verifier: parseCosignerKey(key), cosignedAt: 0, failures: 0, retryAt: 0 }));
  }

  onApplicationBootstrap(): void {
    if (this.witnesses.length > 0) {
      this.asking = this.lead();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    this.session?.close();
    await this.asking;
    await Promise.all(this.witnesses.map((witness) => witness.asking ?? Promise.resolve()));
  }

  /** The checkpoint to serve: with a quorum, the latest that reached it with its cosignatures appended; the latest signed otherwise. */
  async servedCheckpoint(): Promise<string> {
    if (this.config.quorum === 0) {
      return (await this.tree.latestCheckpoint()).note;
    }
    const cosigned = await this.repository.findLatestWithQuorum(this.config.witnesses.map(({ key }) => key), this.config.quorum);
    if (!cosigned) {
      throw new ServiceUnavailableError('No audit checkpoint has been cosigned by AUDIT_WITNESS_QUORUM witnesses yet; retry in a moment');
    }
    return `${cosigned.note}${cosigned.cosignatures.map(({ signature }) => `${signature}\n`).join('')}`;
  }

  /**
   * With a quorum, how old the served checkpoint's quorum of cosignatures is (its quorum-th newest), in
   * seconds; before any checkpoint reached it, how long the instance has run. Undefined without a quorum.
   */
  async quorumAgeSeconds(): Promise<number | undefined> {
    if (this.config.quorum === 0) {
      return undefined;
    }
    const cosigned = await this.repository.findLatestWithQuorum(this.config.witnesses.map(({ key }) => key), this.config.quorum);
    const times = (cosigned?.cosignatures ?? []).map(({ cosignedAt }) => cosignedAt).sort((a, b) => b - a);
    const since = times.length >= this.config.quorum ? times[this.config.quorum - 1] * 1000 : this.startedAt;
    return Math.max(0, Math.floor((Date.now() - since) / 1000));
  }

  get maxAgeSeconds(): number {
    return this.config.maxAgeSeconds;
  }

  /** Looks for a new checkpoint to send every LOOK_MS while this instance may ask: always on SQLite, while it holds the lock on PostgreSQL. */
  private async lead(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const lost = new AbortController();
      try {
        if (this.database.database.dialect === 'postgres') {
          this.session = await DedicatedSession.open(this.db, () => lost.abort());
          while (!(await this.session.tryLock(WITNESSES_LOCK))) {
            await pause(this.audit.takeoverIntervalMs, AbortSignal.any([this.stopping.signal, lost.signal]));
          }
          this.logger.log('This instance asks the witnesses to cosign the audit checkpoints');
        }
        while (!this.stopping.signal.aborted && !lost.signal.aborted) {
          await this.askAll();
          await pause(Math.min(LOOK_MS, this.audit.checkpointIntervalMs), this.stopping.signal);
        }
      } catch (error) {
        if (!this.stopping.signal.aborted) {
          this.logger.warn(`asking the witnesses was interrupted: ${error instanceof Error ? error.message : String(error)}`);
        }
      } finally {
        this.session?.close();
        this.session = undefined;
      }
      await pause(this.audit.takeoverIntervalMs, this.stopping.signal);
    }
  }

  /** Sends the latest checkpoint to each witness that has not cosigned it lately, may be asked now, and has no request under way. */
  private async askAll(): Promise<void> {
    const latest = await this.tree.latestCheckpoint().catch(() => undefined);
    if (!latest) {
      return;
    }
    if (this.recordedSize !== latest.treeSize) {
      await this.repository.recordCheckpoint(latest.treeSize, latest.note);
      this.recordedSize = latest.treeSize;
    }
    if (this.witnesses.some((witness) => witness.size === undefined)) {
      const sizes = await this.repository.findCosignedSizes();
      this.witnesses.forEach((witness) => (witness.size ??= sizes.get(witness.key) ?? 0));
    }
    const now = Date.now();
    const refreshSeconds = this.config.maxAgeSeconds / 4;
    const due = this.witnesses.filter(
      (witness) => !witness.asking && now >= witness.retryAt && (witness.size !== latest.treeSize || now / 1000 - witness.cosignedAt >= refreshSeconds),
    );
    for (const witness of due) {
      witness.asking = this.ask(witness, latest.treeSize, latest.note)
        .catch((error: unknown) => this.logger.warn(`asking witness ${witness.verifier.name} failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => (witness.asking = undefined));
    }
  }

  /** One witness: the checkpoint with a proof from the size it holds, again at once if it holds another size than this instance thought. */
  private async ask(witness: Witness, size: number, note: string): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const outcome = await this.submit(witness, size, note);
      this.metrics.auditWitnessAsked(witness.verifier.name, outcome.outcome);
      if (outcome.outcome === 'cosigned') {
        witness.failures = 0;
        witness.retryAt = 0;
        return;
      }
      if (outcome.outcome !== 'conflict' || outcome.retry !== true) {
        witness.failures++;
        witness.retryAt = Date.now() + Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (witness.failures - 1));
        this.logger.warn(`witness ${witness.verifier.name} (${witness.url}) did not cosign the checkpoint of ${size} events: ${outcome.reason}`);
        return;
      }
    }
  }

  private async submit(witness: Witness, size: number, note: string): Promise<{ outcome: WitnessOutcome; reason?: string; retry?: boolean }> {
    const old = witness.size ?? 0;
    if (old > size) {
      return { outcome: 'refused', reason: `it holds a checkpoint of ${old} events, more than this log's ${size}: the log was rolled back` };
    }
    const proof = old > 0 && old < size ? (await this.tree.consistencyProof(old, size)).consistency_path : [];
    let answer;
    try {
      answer = await addCheckpoint(witness.url, old, proof, note);
    } catch (error) {
      return { outcome: 'unreachable', reason: error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error) };
    }
    if ('size' in answer) {
      const changed = answer.size !== old;
      witness.size = answer.size;
      return { outcome: 'conflict', retry: changed, reason: changed ? undefined : `it holds another checkpoint of ${old} events: the log's history differs from what it cosigned` };
    }
    if ('message' in answer) {
      return { outcome: 'refused', reason: `it answered ${answer.status}: ${answer.message}` };
    }
    const body = splitNote(note).body;
    const line = answer.lines.find((candidate) => cosignatureTime(candidate, body, witness.verifier) !== undefined);
    if (line === undefined) {
      return { outcome: 'invalid', reason: 'its answer holds no valid cosignature by its configured key' };
    }
    const cosignedAt = cosignatureTime(line, body, witness.verifier) as number;
    await this.repository.storeCosignature(size, { witnessKey: witness.key, signature: line, cosignedAt });
    witness.size = size;
    witness.cosignedAt = cosignedAt;
    return { outcome: 'cosigned' };
  }
}

/** Waits `ms`, or less when `signal` aborts first. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
