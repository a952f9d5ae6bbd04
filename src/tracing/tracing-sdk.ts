import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { TracingConfig } from '../config';

/**
 * OpenTelemetry's Node SDK with the instrumentations of what a request passes through: the HTTP server
 * (a span per request: its route, status, and the request id the response carries), Express (only to
 * name the route), PostgreSQL and Redis. The SDK reads the exporter, its endpoint and protocol, the
 * sampler and `traceparent` propagation from the standard OTEL_* variables. Traces alone: the metrics
 * are Prometheus's (GET /metrics) and the logs are on stdout.
 */
export function createTracingSdk({ serviceName }: TracingConfig): NodeSDK {
  return new NodeSDK({
    serviceName,
    instrumentations: [
      // The X-Request-Id header of src/http/request-context.ts, as `http.response.header.x-request-id`.
      new HttpInstrumentation({ headersToSpanAttributes: { server: { responseHeaders: ['x-request-id'] } } }),
      // Only to name the request's route: a span of Express's own would repeat the request's, and cost as much.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER, ExpressLayerType.REQUEST_HANDLER] }),
      // Statements outside a request (the audit sequencer's, every few milliseconds) would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
    metricReaders: [],
    logRecordProcessors: [],
  });
}
