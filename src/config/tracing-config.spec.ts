import 'reflect-metadata';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { assertRefused } from '../../test/support/configuration';
import { loadAppConfig, loadTracingConfig } from '.';

const CWD = resolve('/srv/fleet-registry');

const load = (env: NodeJS.ProcessEnv) => loadAppConfig(env, CWD);
const refuses = (env: NodeJS.ProcessEnv, ...fragments: string[]) => assertRefused(load, env, ...fragments);

describe('loadAppConfig: OpenTelemetry', () => {
  describe('OpenTelemetry traces', () => {
    const ENDPOINT = 'http://collector:4318';

    it('are off unless an OTLP endpoint or a trace exporter is named, and named fleet-registry by default', () => {
      assert.equal(load({ OTEL_SERVICE_NAME: 'registry-eu' }).tracing, undefined);
      assert.deepEqual(load({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }).tracing, { serviceName: 'fleet-registry' });
      assert.deepEqual(load({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }).tracing, { serviceName: 'fleet-registry' });
      assert.deepEqual(load({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'registry-eu' }).tracing, { serviceName: 'registry-eu' });
    });

    it('stay off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever the endpoint', () => {
      assert.equal(load({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }).tracing, undefined);
      assert.equal(load({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).tracing, undefined);
    });

    it('refuses an endpoint that is not an http(s) URL, an unknown protocol and an unknown exporter, naming each', () => {
      refuses(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http', OTEL_TRACES_EXPORTER: 'jaeger' },
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'OTEL_EXPORTER_OTLP_PROTOCOL',
        'OTEL_TRACES_EXPORTER',
      );
    });

    it('are read alone before start-up, with the OTEL_* variables only', () => {
      assert.deepEqual(loadTracingConfig({ PORT: 'abc', OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }), { serviceName: 'fleet-registry' });
      assert.equal(loadTracingConfig({ PORT: 'abc' }), undefined);
    });
  });
});
