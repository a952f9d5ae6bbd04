import { Module } from '@nestjs/common';
import { AuditModule } from '../audit';
import { MetricsModule } from '../observability';

/**
 * Pushes the trail to the systems that act on it: signed webhooks (webhooks/: the subscriptions' API and
 * the signed POST) and the syslog feed (syslog/), each a feed that feeds/ delivers in chain order, at
 * least once, one instance at a time (docs/api.md#webhooks, docs/operations.md#webhooks-and-syslog).
 */
@Module({
  imports: [AuditModule, MetricsModule],
  controllers: [],
  providers: [],
})
export class DeliveryModule {}
