import { Global, Module } from '@nestjs/common';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';
import { MetricsTokenGuard } from './metrics-token.guard';
import { RequestObserver } from './request-observer';

/** Global, so the services that decide (assets, audit) count their outcomes without importing it. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, MetricsTokenGuard, RequestObserver],
  exports: [Metrics, RequestObserver],
})
export class ObservabilityModule {}
