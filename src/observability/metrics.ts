import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type DB, poolUsage, type PoolUsage } from '../database';

/** One request as the access log and the request metrics both see it. */
export interface RequestObservation {
  method: string;
  /** The route template (`/v1/assets/:asset_id`), or `unmatched`: never the raw path, so the labels stay few. */
  route: string;
  /** 0 when the client went away before an answer was sent. */
  status: number;
  seconds: number;
}

/** How far one feed this instance delivers is behind the chain's head. */
export interface FeedLag {
  /** The subscription's id, or `syslog`. */
  feed: string;
  /** The chain's newest event id minus the feed's cursor. */
  events: number;
  /** The age of the oldest event the feed has not passed yet; 0 when it is caught up. */
  seconds: number;
}

const POOL_GAUGES: { name: string; help: string; read: (usage: PoolUsage) => number }[] = [
  { name: 'fleet_registry_db_pool_max', help: 'PostgreSQL connections the pool may open (DATABASE_POOL_SIZE)', read: (usage) => usage.max },
  { name: 'fleet_registry_db_pool_in_use', help: 'PostgreSQL connections checked out of the pool', read: (usage) => usage.inUse },
  { name: 'fleet_registry_db_pool_idle', help: 'PostgreSQL connections open and idle in the pool', read: (usage) => usage.idle },
  { name: 'fleet_registry_db_pool_waiting', help: 'Queries waiting for a free PostgreSQL connection', read: (usage) => usage.waiting },
];

/**
 * The service's Prometheus metrics, in a registry of its own rather than prom-client's global one, so
 * that several apps in one process (the e2e tests) each count their own.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status (0: the client left first)',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the first byte of the request to the end of the answer, by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly decommissions = new Counter({
    name: 'fleet_registry_decommissions_total',
    help: 'Decommission decisions: allowed, or denied with the reason answered',
    labelNames: ['outcome', 'reason'],
    registers: [this.registry],
  });
  private readonly auditEvents = new Counter({
    name: 'fleet_registry_audit_events_written_total',
    help: 'Decisions whose event this instance wrote and saw placed in the audit chain, by action and outcome',
    labelNames: ['action', 'outcome'],
    registers: [this.registry],
  });
  private readonly auditAppends = new Histogram({
    name: 'fleet_registry_audit_append_seconds',
    help: "Time from writing a decision's event to seeing it placed in the chain and committed",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly auditBatches = new Histogram({
    name: 'fleet_registry_audit_batch_size',
    help: 'Events this instance placed in the chain per sequencing batch',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048],
    registers: [this.registry],
  });
  private readonly auditSequenced = new Counter({
    name: 'fleet_registry_audit_events_sequenced_total',
    help: 'Events this instance, as sequencer, placed in the audit chain',
    registers: [this.registry],
  });
  private readonly auditVerifications = new Counter({
    name: 'fleet_registry_audit_verifications_total',
    help: 'GET /v1/audit/verify as this instance met it: started a walk, joined the walk of the same trail head, or refused (every walk running)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly auditVerificationsRunning = new Gauge({
    name: 'fleet_registry_audit_verifications_running',
    help: 'Walks of the audit chain running on this instance, each a thread and, on PostgreSQL, a connection of its own',
    registers: [this.registry],
  });
  private readonly auditReplayed = new Counter({
    name: 'fleet_registry_audit_stream_replayed_events_total',
    help: 'Events the audit streams of this instance read from the database to replay them',
    registers: [this.registry],
  });
  private readonly feedDeliveries = new Counter({
    name: 'fleet_registry_delivery_events_delivered_total',
    help: 'Events this instance delivered, by feed (a webhook subscription id, or syslog)',
    labelNames: ['feed'],
    registers: [this.registry],
  });
  private readonly feedFailures = new Counter({
    name: 'fleet_registry_delivery_attempts_failed_total',
    help: 'Failed delivery attempts this instance made, by feed: each is retried after a backoff',
    labelNames: ['feed'],
    registers: [this.registry],
  });
  private readonly feedsFailing = new Counter({
    name: 'fleet_registry_delivery_feeds_failing_total',
    help: 'Times a feed turned failing on this instance (WEBHOOK_MAX_ATTEMPTS failed attempts at one event): it stops until resumed',
    labelNames: ['feed'],
    registers: [this.registry],
  });
  private readonly auditWitnessRequests = new Counter({
    name: 'fleet_registry_audit_witness_requests_total',
    help: 'Checkpoints this instance sent to a witness, by witness name and outcome: cosigned, conflict (409: it holds another size or root), refused (another status), invalid (no valid cosignature in its answer), unreachable',
    labelNames: ['witness', 'outcome'],
    registers: [this.registry],
  });
  private readonly idempotentReplays = new Counter({
    name: 'fleet_registry_idempotent_replays_total',
    help: 'Decisions answered again from their Idempotency-Key, applied once, by method and route template',
    labelNames: ['method', 'route'],
    registers: [this.registry],
  });
  private auditLagSeconds: () => number = () => 0;
  private feedLags: () => FeedLag[] = () => [];

  constructor(db: Kysely<DB>) {
    collectDefaultMetrics({ register: this.registry });
    const lagSeconds = () => this.auditLagSeconds();
    new Gauge({
      name: 'fleet_registry_audit_sequencing_lag_seconds',
      help: "How long the oldest of this instance's events still waiting for its place in the chain has waited (0: none waits)",
      registers: [this.registry],
      collect() {
        this.set(lagSeconds());
      },
    });
    const feedLags = () => this.feedLags();
    new Gauge({
      name: 'fleet_registry_delivery_lag_events',
      help: "Events between the chain's head and the cursor of each feed this instance delivers",
      labelNames: ['feed'],
      registers: [this.registry],
      collect() {
        this.reset();
        feedLags().forEach((lag) => this.set({ feed: lag.feed }, lag.events));
      },
    });
    new Gauge({
      name: 'fleet_registry_delivery_lag_seconds',
      help: 'Age of the oldest event not yet delivered (or passed over) by each feed this instance delivers; 0 when caught up',
      labelNames: ['feed'],
      registers: [this.registry],
      collect() {
        this.reset();
        feedLags().forEach((lag) => this.set({ feed: lag.feed }, lag.seconds));
      },
    });
    if (poolUsage(db)) {
      for (const { name, help, read } of POOL_GAUGES) {
        new Gauge({
          name,
          help,
          registers: [this.registry],
          // Read when Prometheus scrapes, so the figures are the pool's at that moment.
          collect() {
            const usage = poolUsage(db);
            if (usage) {
              this.set(read(usage));
            }
          },
        });
      }
    }
  }

  requestObserved({ method, route, status, seconds }: RequestObservation): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.durations.observe(labels, seconds);
  }

  decommissionAllowed(count = 1): void {
    this.decommissions.inc({ outcome: 'allowed' }, count);
  }

  decommissionDenied(reason: string): void {
    this.decommissions.inc({ outcome: 'denied', reason });
  }

  auditEventWritten(action: string, outcome: string, seconds: number): void {
    this.auditEvents.inc({ action, outcome });
    this.auditAppends.observe(seconds);
  }

  auditBatchSequenced(size: number): void {
    this.auditBatches.observe(size);
    this.auditSequenced.inc(size);
  }

  auditVerificationAsked(outcome: 'started' | 'joined' | 'refused'): void {
    this.auditVerifications.inc({ outcome });
    if (outcome === 'started') {
      this.auditVerificationsRunning.inc();
    }
  }

  auditVerificationEnded(): void {
    this.auditVerificationsRunning.dec();
  }

  idempotentReplay(method: string, route: string): void {
    this.idempotentReplays.inc({ method, route });
  }

  auditEventsReplayed(count: number): void {
    this.auditReplayed.inc(count);
  }

  feedEventDelivered(feed: string): void {
    this.feedDeliveries.inc({ feed });
  }

  feedAttemptFailed(feed: string): void {
    this.feedFailures.inc({ feed });
  }

  feedTurnedFailing(feed: string): void {
    this.feedsFailing.inc({ feed });
  }

  /** `read` gives the lag of each feed this instance delivers when Prometheus scrapes. */
  readFeedLagsWith(read: () => FeedLag[]): void {
    this.feedLags = read;
  }

  auditWitnessAsked(witness: string, outcome: 'cosigned' | 'conflict' | 'refused' | 'invalid' | 'unreachable'): void {
    this.auditWitnessRequests.inc({ witness, outcome });
  }

  /** `read` gives the sequencing lag in seconds when Prometheus scrapes. */
  readAuditLagWith(read: () => number): void {
    this.auditLagSeconds = read;
  }
}
