import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type AuditEntry, AuditEventsService, AuditService, decodeAuditCursor, encodeAuditCursor } from '../../audit';
import { type Actor, pageNumber, pageOffset, type RequestOrigin, ValidationFailedError } from '../../common';
import { DELIVERY_CONFIG, type DeliveryConfig } from '../../config';
import { serializeWithin, TransactionRunner } from '../../database';
import { WEBHOOK_ACTIONS } from '../delivery.vocabulary';
import type {
  CreatedWebhookDto,
  CreateWebhookDto,
  DeliveryAttemptPageDto,
  ListWebhooksQueryDto,
  RotatedSecretDto,
  WebhookDto,
  WebhookFilterDto,
  WebhookPageDto,
} from './dto/webhook.dto';
import { DeliveryDispatcher } from '../feeds/delivery-dispatcher';
import { SecretBox } from './secret-box';
import { checkWebhookUrl } from './target-guard';
import { newWebhookSecret } from './webhook-secret';
import { WebhookSubscriptionsRepository, type Window } from './webhook-subscriptions.repository';
import { WebhookLimitError, WebhookNotFoundError, WebhooksUnavailableError } from './webhooks.errors';

/** How long a replaced secret keeps signing deliveries, so receivers can switch without losing any. */
const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

type SubscriptionRow = Awaited<ReturnType<WebhookSubscriptionsRepository['findWritten']>>;

function shown({ filter, ...row }: SubscriptionRow): WebhookDto {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filter: JSON.parse(filter) as WebhookFilterDto,
    state: row.state,
    cursor: Number(row.cursor),
    attempts: Number(row.attempts),
    last_error: row.last_error,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
  };
}

/** The url as the trail records it: without its query and fragment, where receivers' tokens often ride. */
function recordedUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The filter as stored: only the fields given, so that an absent one keeps taking every event. */
function storedFilter(filter: WebhookFilterDto | undefined): string {
  const { actions, outcomes, asset_id } = filter ?? {};
  return JSON.stringify({ actions, outcomes, asset_id });
}

/** The row a cursor names: the next page holds the rows before it. */
function positionOf(query: ListWebhooksQueryDto): number | undefined {
  return query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
}

function windowOf(query: ListWebhooksQueryDto, beforeId: number | undefined): Window {
  return beforeId === undefined ? { limit: query.limit, offset: pageOffset(query) } : { limit: query.limit, beforeId };
}

/** A page's position as the listings write it: counted and numbered only when asked for by page. */
function pagePosition(query: ListWebhooksQueryDto, beforeId: number | undefined, total: number | null, lastId: number | undefined) {
  return {
    total_count: total,
    page: beforeId === undefined ? pageNumber(query) : null,
    per_page: query.limit,
    next_cursor: lastId === undefined ? null : encodeAuditCursor(lastId),
  };
}

/**
 * The webhook subscriptions: each a feed of the trail that the engine (feeds/) delivers. Every change
 * is written with its audit event in one transaction; the secret is shown once, when made.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly secretBox: SecretBox,
    private readonly events: AuditEventsService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly dispatcher: DeliveryDispatcher,
    @Inject(DELIVERY_CONFIG) private readonly config: DeliveryConfig,
  ) {}

  async create(request: CreateWebhookDto, officer: Actor, origin: RequestOrigin): Promise<CreatedWebhookDto> {
    this.assertSecretsAvailable();
    const url = await checkWebhookUrl(request.url, this.config);
    const cursor = await this.startingCursor(request.start ?? 'now');
    const id = randomUUID();
    const secret = newWebhookSecret();
    const created = await this.transactions.run(async (trx) => {
      // Two creations at once on PostgreSQL count in turn, so neither passes the cap the other reached.
      await serializeWithin(trx, 'webhooks', 'count');
      if ((await this.subscriptions.count(trx)) >= this.config.subscriptionsMax) {
        throw new WebhookLimitError(`This instance holds WEBHOOK_SUBSCRIPTIONS_MAX (${this.config.subscriptionsMax}) webhook subscriptions; delete one first`);
      }
      await this.subscriptions.insert(trx, {
        id,
        // As parsed: the sender reads the url the checks judged.
        url: url.href,
        description: request.description ?? null,
        filter: storedFilter(request.filter),
        secret: this.secretBox.seal(secret),
        cursor,
        created_by: officer.id,
      });
      await this.audit.append(trx, this.changeEvent(WEBHOOK_ACTIONS.create, { id, url: url.href }, officer, origin));
      return this.subscriptions.findWritten(trx, id);
    });
    this.dispatcher.lookForFeedsNow();
    return { ...shown(created), secret };
  }

  /** Newest first: a keyset page by cursor, which counts nothing, or the offset page with total_count. */
  async list(query: ListWebhooksQueryDto): Promise<WebhookPageDto> {
    const beforeId = positionOf(query);
    const [{ rows, lastId }, total] = await Promise.all([
      this.subscriptions.findPage(windowOf(query, beforeId)),
      beforeId === undefined ? this.subscriptions.count() : null,
    ]);
    return { webhooks: rows.map(shown), ...pagePosition(query, beforeId, total, lastId) };
  }

  async findOne(id: string): Promise<WebhookDto> {
    const row = await this.subscriptions.find(id);
    if (!row) {
      throw new WebhookNotFoundError();
    }
    return shown(row);
  }

  /** The subscription, its feed and its attempts go, with its event; answers what it was. */
  async delete(id: string, officer: Actor, origin: RequestOrigin): Promise<WebhookDto> {
    return this.transactions.run(async (trx) => {
      const row = await this.subscriptions.find(id, trx);
      if (!row || !(await this.subscriptions.delete(trx, id))) {
        throw new WebhookNotFoundError();
      }
      await this.audit.append(trx, this.changeEvent(WEBHOOK_ACTIONS.delete, row, officer, origin));
      return shown(row);
    });
  }

  /** Active again from the same event: its failed attempts forgotten, the next one at once. */
  async resume(id: string, officer: Actor, origin: RequestOrigin): Promise<WebhookDto> {
    const resumed = await this.transactions.run(async (trx) => {
      if (!(await this.subscriptions.resume(trx, id))) {
        throw new WebhookNotFoundError();
      }
      const row = await this.subscriptions.findWritten(trx, id);
      await this.audit.append(trx, this.changeEvent(WEBHOOK_ACTIONS.resume, row, officer, origin));
      return shown(row);
    });
    this.dispatcher.lookForFeedsNow();
    return resumed;
  }

  /** A new secret, shown once; the one it replaces keeps signing for 24 hours beside it. */
  async rotateSecret(id: string, officer: Actor, origin: RequestOrigin): Promise<RotatedSecretDto> {
    this.assertSecretsAvailable();
    const secret = newWebhookSecret();
    const previousUntil = new Date(Date.now() + PREVIOUS_SECRET_MS).toISOString();
    return this.transactions.run(async (trx) => {
      if (!(await this.subscriptions.rotateSecret(trx, id, this.secretBox.seal(secret), previousUntil))) {
        throw new WebhookNotFoundError();
      }
      const row = await this.subscriptions.findWritten(trx, id);
      await this.audit.append(trx, this.changeEvent(WEBHOOK_ACTIONS.rotateSecret, row, officer, origin));
      return { id, secret, previous_secret_until: previousUntil };
    });
  }

  async deliveries(id: string, query: ListWebhooksQueryDto): Promise<DeliveryAttemptPageDto> {
    await this.findOne(id);
    const beforeId = positionOf(query);
    const [{ rows, lastId }, total] = await Promise.all([
      this.subscriptions.findAttempts(id, windowOf(query, beforeId)),
      beforeId === undefined ? this.subscriptions.countAttempts(id) : null,
    ]);
    return {
      deliveries: rows.map(({ event_id, attempt, status, error, duration_ms, attempted_at }) => ({
        event_id: Number(event_id),
        attempt: Number(attempt),
        status: status === null ? null : Number(status),
        error,
        duration_ms: Number(duration_ms),
        attempted_at,
      })),
      ...pagePosition(query, beforeId, total, lastId),
    };
  }

  /** A change's audit event: the subscription's id and url, never its secret. */
  private changeEvent(action: string, { id, url }: Pick<SubscriptionRow, 'id' | 'url'>, officer: Actor, origin: RequestOrigin): AuditEntry {
    return { action, outcome: 'allowed', actor: officer, origin, details: { webhook_id: id, url: recordedUrl(new URL(url)) } };
  }

  /** The cursor a new subscription starts after: delivery starts with the event after it. */
  private async startingCursor(start: 'now' | 'beginning' | number): Promise<number> {
    if (start === 'now') {
      return this.events.newestId();
    }
    if (start === 'beginning') {
      return 0;
    }
    if (!(await this.events.exists(start))) {
      throw new ValidationFailedError(`start names no event of the trail: ${start}`);
    }
    return start - 1;
  }

  private assertSecretsAvailable(): void {
    if (!this.secretBox.available()) {
      throw new WebhooksUnavailableError('Webhooks are off on this instance: WEBHOOK_SECRET_KEY_FILE is not set');
    }
  }
}
