import { Inject, Injectable } from '@nestjs/common';
import { DELIVERY_CONFIG, type DeliveryConfig } from '../../config';
import type { DeliveryFeedRow } from '../../database';
import { SyslogSender } from '../syslog/syslog-sender';
import { SecretBox } from '../webhooks/secret-box';
import { WebhookSender } from '../webhooks/webhook-sender';
import { WebhookTargets } from '../webhooks/webhook-targets';
import type { FeedSender } from './feed-sender';

/** Which kinds of feed this instance delivers, and the sender of each feed it takes. */
@Injectable()
export class FeedSenders {
  constructor(
    private readonly targets: WebhookTargets,
    private readonly secretBox: SecretBox,
    @Inject(DELIVERY_CONFIG) private readonly config: DeliveryConfig,
  ) {}

  /**
   * Webhooks only where their secrets can be opened (SecretBox.available(): not in production without
   * WEBHOOK_SECRET_KEY_FILE); syslog only where AUDIT_SYSLOG_URL is set. An instance leaves the feeds
   * it cannot deliver to the others.
   */
  deliverableKinds(): DeliveryFeedRow['kind'][] {
    const kinds: DeliveryFeedRow['kind'][] = this.secretBox.available() ? ['webhook'] : [];
    return this.config.syslog === undefined ? kinds : [...kinds, 'syslog'];
  }

  senderFor(feed: Pick<DeliveryFeedRow, 'feed_id' | 'kind'>): FeedSender {
    switch (feed.kind) {
      case 'webhook':
        return new WebhookSender(feed.feed_id, this.targets, this.config);
      case 'syslog':
        if (this.config.syslog === undefined) {
          throw new Error('the syslog feed is only taken where AUDIT_SYSLOG_URL is set');
        }
        return new SyslogSender(this.config.syslog, this.config.timeoutMs);
    }
  }
}
