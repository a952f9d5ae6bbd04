import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { Public } from '../auth';
import { ApiErrorResponse, WWW_AUTHENTICATE_HEADER } from '../common';
import { Unthrottled } from '../rate-limit';
import { Metrics } from './metrics';
import { METRICS_TOKEN_REQUIRED, MetricsTokenGuard } from './metrics-token.guard';

/** Public as far as officers' tokens go: Prometheus holds METRICS_TOKEN instead, and scrapes unthrottled like the health checks. */
@ApiTags('metrics')
@Public()
@Unthrottled()
@UseGuards(MetricsTokenGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics: requests by route and status, decommission outcomes, audit events, database pool, process',
    description: 'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set, and is closed in production until it is.',
  })
  // The content type on the 200 alone: the error answers stay JSON.
  @ApiOkResponse({ description: 'The Prometheus text exposition format', content: { [Registry.PROMETHEUS_CONTENT_TYPE]: { schema: { type: 'string' } } } })
  @ApiErrorResponse(
    401,
    'UNAUTHENTICATED',
    METRICS_TOKEN_REQUIRED,
    'UNAUTHENTICATED: METRICS_TOKEN is set and the bearer token is not it; or NODE_ENV=production and no METRICS_TOKEN is configured, which the message then says',
    WWW_AUTHENTICATE_HEADER,
  )
  @ApiErrorResponse(
    503,
    'SERVICE_UNAVAILABLE',
    'The service is temporarily unavailable',
    'A refused scrape is a denial on the record, and the audit event cannot be written (SERVICE_UNAVAILABLE)',
  )
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
