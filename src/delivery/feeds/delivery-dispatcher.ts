import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AuditEventsService, AuditLog } from '../../audit';
import { DELIVERY_CONFIG, type DeliveryConfig } from '../../config';
import { Metrics, ServingLoad } from '../../observability';
import { DeliveryFeedsRepository, type HeldFeed } from './delivery-feeds.repository';
import { DeliveryPace } from './delivery-pace';
import { FeedRunner, type RunnerContext } from './feed-runner';
import { FeedSenders } from './feed-senders';

/** While it holds feeds, the instance reads the chain's head this often: SQLite tells nothing of another process's events, and a PostgreSQL notice may be lost. */
const HEAD_POLL_MS = 200;
/** A lease is stored for this part of WEBHOOK_LEASE_MS ... */
const LEASE_STORED_PART = 2 / 3;
/** ... and renewed, with free feeds looked for, this often: an instance that dies is replaced within 2/3 + 1/6 of the lease. */
const LEASE_RENEWALS_PER_LEASE = 6;

/**
 * The instance's part of delivery: it holds the leases of the feeds it delivers (every active one no
 * other live instance holds, of the kinds it can deliver), runs a FeedRunner for each, renews them and
 * looks for new, resumed or abandoned feeds every WEBHOOK_LEASE_MS / 6, and stops a runner whose feed
 * it no longer holds (deleted, failing, or taken over after this instance stalled). New events wake the
 * runners: PostgreSQL's notice from any instance, this process's commits on SQLite, and a poll of the
 * chain's head. On shutdown it stops every runner, then hands the leases back for others to take at once.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Delivery');
  /** Names this instance in leases: unique even for two processes of one host and pid namespace. */
  private readonly owner = `${hostname()}/${process.pid}/${randomUUID()}`;
  private readonly runners = new Map<string, { runner: FeedRunner; done: Promise<void> }>();
  private readonly context: RunnerContext;
  private head = 0;
  private leaseTimer?: NodeJS.Timeout;
  private headTimer?: NodeJS.Timeout;
  private stopListening?: () => void;
  private stopping = false;

  constructor(
    feeds: DeliveryFeedsRepository,
    private readonly events: AuditEventsService,
    private readonly auditLog: AuditLog,
    private readonly senders: FeedSenders,
    private readonly metrics: Metrics,
    load: ServingLoad,
    @Inject(DELIVERY_CONFIG) private readonly config: DeliveryConfig,
  ) {
    this.context = { owner: this.owner, feeds, events, pace: new DeliveryPace(load), metrics, config, logger: this.logger };
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.senders.deliverableKinds().length === 0) {
      return;
    }
    if (this.config.syslog) {
      // The first start with AUDIT_SYSLOG_URL: the feed starts from the chain's head, not from its beginning.
      await this.context.feeds.ensureSyslogFeed(await this.events.newestId());
    }
    this.metrics.readFeedLagsWith(() => [...this.runners.values()].map(({ runner }) => runner.lag(this.head, Date.now())));
    this.stopListening = this.auditLog.onPlacedAnywhere(() => this.wakeAll());
    await this.takeLeases();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.stopListening?.();
    clearTimeout(this.leaseTimer);
    clearTimeout(this.headTimer);
    if (this.runners.size === 0) {
      return;
    }
    const running = [...this.runners.values()];
    running.forEach(({ runner }) => runner.stop());
    await Promise.all(running.map(({ done }) => done));
    await this.context.feeds.releaseLeases(this.owner).catch((error: unknown) => {
      this.logger.warn(`leases not handed back (others take the feeds when they expire): ${error instanceof Error ? error.message : String(error)}`);
    });
    this.logger.log(`Delivery stopped: ${running.length} feed(s) handed back`);
  }

  /**
   * A feed was created or resumed on this instance: looked for now rather than at the next renewal, so
   * its first event goes out at once instead of up to WEBHOOK_LEASE_MS / 6 later. Another instance's
   * change is found at that renewal.
   */
  lookForFeedsNow(): void {
    if (!this.stopping && this.senders.deliverableKinds().length > 0) {
      void this.takeLeases();
    }
  }

  /** Takes and renews leases, starts a runner for each feed newly held, stops those of feeds no longer held; then again in LEASE_MS / 6. */
  private async takeLeases(): Promise<void> {
    try {
      const held = await this.context.feeds.takeLeases(this.owner, this.senders.deliverableKinds(), this.config.leaseMs * LEASE_STORED_PART);
      if (!this.stopping) {
        this.follow(held);
      }
    } catch (error) {
      this.logger.warn(`leases not renewed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!this.stopping) {
      // The one timer left is the last look's, when lookForFeedsNow() overlapped a renewal.
      clearTimeout(this.leaseTimer);
      this.leaseTimer = setTimeout(() => void this.takeLeases(), this.config.leaseMs / LEASE_RENEWALS_PER_LEASE);
    }
  }

  private follow(held: HeldFeed[]): void {
    const heldIds = new Set(held.map((feed) => feed.feed_id));
    for (const [feedId, { runner }] of this.runners) {
      if (!heldIds.has(feedId)) {
        runner.stop();
      }
    }
    for (const feed of held) {
      if (!this.runners.has(feed.feed_id)) {
        this.start(feed);
      }
    }
    this.pollHead();
  }

  private start(feed: HeldFeed): void {
    const runner = new FeedRunner(feed, this.senders.senderFor(feed), this.context);
    const done = runner.run().finally(() => {
      if (this.runners.get(feed.feed_id)?.runner === runner) {
        this.runners.delete(feed.feed_id);
      }
    });
    this.runners.set(feed.feed_id, { runner, done });
  }

  private wakeAll(): void {
    this.runners.forEach(({ runner }) => runner.wake());
  }

  /** While feeds are held, reads the chain's head every HEAD_POLL_MS and wakes the runners when it moved. */
  private pollHead(): void {
    if (this.headTimer !== undefined || this.stopping || this.runners.size === 0) {
      return;
    }
    this.headTimer = setTimeout(() => {
      void this.events
        .newestId()
        .then((head) => {
          if (head !== this.head) {
            this.head = head;
            this.wakeAll();
          }
        })
        .catch(() => undefined)
        .finally(() => {
          this.headTimer = undefined;
          this.pollHead();
        });
    }, HEAD_POLL_MS);
  }
}
