import { Injectable } from '@nestjs/common';
import type { ShownAuditEvent } from '../../audit';
import { SecretBox } from './secret-box';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';

/** Which events a subscription takes: each field narrows them; an absent one takes all. */
export interface WebhookFilter {
  actions?: string[];
  outcomes?: ('allowed' | 'denied')[];
  asset_id?: string;
}

export function matchesFilter(filter: WebhookFilter, event: ShownAuditEvent): boolean {
  return (
    (filter.actions === undefined || filter.actions.includes(event.action)) &&
    (filter.outcomes === undefined || filter.outcomes.includes(event.outcome)) &&
    (filter.asset_id === undefined || filter.asset_id === event.asset_id)
  );
}

/** Where a subscription's deliveries go and what signs them. */
export interface WebhookTarget {
  url: string;
  filter: WebhookFilter;
  /** Decrypted whsec_ secrets: the current one first, then the one it replaced while that still signs. */
  secrets: string[];
}

/** The subscriptions as the sender reads them: decrypted, for one delivery at a time. */
@Injectable()
export class WebhookTargets {
  constructor(
    private readonly subscriptions: WebhookSubscriptionsRepository,
    private readonly secretBox: SecretBox,
  ) {}

  /** The subscription's target now; undefined once it is deleted. */
  async find(feedId: string): Promise<WebhookTarget | undefined> {
    const row = await this.subscriptions.findTarget(feedId);
    if (row === undefined) {
      return undefined;
    }
    const secrets = [this.secretBox.open(row.secret)];
    if (row.previous_secret !== null && row.previous_secret_until !== null && row.previous_secret_until > new Date().toISOString()) {
      secrets.push(this.secretBox.open(row.previous_secret));
    }
    return { url: row.url, filter: JSON.parse(row.filter) as WebhookFilter, secrets };
  }
}
