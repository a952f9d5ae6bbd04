import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { Registry } from 'prom-client';
import { Public } from '../auth';
import { ApiErrorResponse, WWW_AUTHENTICATE_HEADER } from '../common';
import { Metrics } from './metrics';
import { METRICS_TOKEN_REQUIRED, MetricsTokenGuard } from './metrics-token.guard';

/** Public as far as officers' tokens go: Prometheus holds METRICS_TOKEN instead, and scrapes unthrottled like the health checks. */
@ApiTags('metrics')
@Public()
@SkipThrottle()
@UseGuards(MetricsTokenGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @ApiOperation({
    summary: 'Prometheus metrics: requests by route and status, decommission outcomes, audit events, database pool, process',
    description: 'Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set, and is closed in production until it is.',
  })
  @ApiProduces(Registry.PROMETHEUS_CONTENT_TYPE)
  @ApiOkResponse({ description: 'The Prometheus text exposition format', schema: { type: 'string' } })
  @ApiErrorResponse(
    401,
    'UNAUTHENTICATED',
    METRICS_TOKEN_REQUIRED,
    'UNAUTHENTICATED: METRICS_TOKEN is set (or NODE_ENV=production) and the bearer token is not it',
    WWW_AUTHENTICATE_HEADER,
  )
  @Header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
