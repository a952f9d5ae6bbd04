import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { MetricsModule } from '../observability';
import { DeliveryDispatcher } from './feeds/delivery-dispatcher';
import { DeliveryFeedsRepository } from './feeds/delivery-feeds.repository';
import { FeedSenders } from './feeds/feed-senders';
import { SecretBox } from './webhooks/secret-box';
import { WebhookSubscriptionsRepository } from './webhooks/webhook-subscriptions.repository';
import { WebhookTargets } from './webhooks/webhook-targets';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksService } from './webhooks/webhooks.service';

/**
 * Pushes the trail to the systems that act on it: signed webhooks (webhooks/: the subscriptions' API and
 * the signed POST) and the syslog feed (syslog/), each a feed that feeds/ delivers in chain order, at
 * least once, one instance at a time (docs/api.md#webhooks, docs/operations.md#webhooks-and-syslog).
 */
@Module({
  imports: [AuditModule, MetricsModule],
  controllers: [WebhooksController],
  providers: [SecretBox, WebhookSubscriptionsRepository, WebhookTargets, WebhooksService, DeliveryFeedsRepository, FeedSenders, DeliveryDispatcher],
})
export class DeliveryModule {}
