import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import type { DB } from '../database';
import { Metrics } from './metrics';

/** A database that is not PostgreSQL's pool: no pool gauges. */
const NO_POOL = {} as Kysely<DB>;

const requestsCounted = async (metrics: Metrics, route: string) => {
  const { values } = await metrics.registry.getSingleMetric('http_requests_total')!.get();
  return values.find(({ labels }) => labels.route === route)?.value ?? 0;
};

describe('Metrics', () => {
  it('counts each request as it is observed, by method, route and status', async () => {
    const metrics = new Metrics(NO_POOL);
    metrics.requestObserved({ method: 'GET', route: '/health/live', status: 200, seconds: 0.001 });
    metrics.requestObserved({ method: 'GET', route: '/health/live', status: 200, seconds: 0.002 });
    metrics.requestObserved({ method: 'GET', route: '/v1/fleet/star-destroyers', status: 200, seconds: 0.001 });

    assert.equal(await requestsCounted(metrics, '/health/live'), 2);
    assert.match(await metrics.registry.metrics(), /^http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} 2$/m);
    assert.match(await metrics.registry.metrics(), /^http_requests_total\{method="GET",route="\/v1\/fleet\/star-destroyers",status="200"\} 1$/m);
  });
});
