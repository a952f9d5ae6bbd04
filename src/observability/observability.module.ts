import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsModule } from './metrics.module';
import { RequestObserver } from './request-observer';

/** What the HTTP server adds to the metrics: the observation of every request, and GET /metrics. */
@Module({
  imports: [MetricsModule],
  controllers: [MetricsController],
  providers: [RequestObserver],
  exports: [RequestObserver],
})
export class ObservabilityModule {}
