import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SetMetadata } from '@nestjs/common';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { recordSpans, Span } from './span';

const ROLE = 'role';

class Guard {
  readonly calls: string[] = [];

  @Span()
  @SetMetadata(ROLE, 'checker')
  async check(who: string): Promise<string> {
    this.calls.push(who);
    return `${who} checked under ${trace.getActiveSpan() ? 'a span' : 'no span'}`;
  }
}

describe('Span', () => {
  const exporter = new InMemorySpanExporter();

  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
  });
  after(() => {
    recordSpans(false);
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const tracer = () => trace.getTracer('test');
  /** Runs `work` as the active span of a sampled request. */
  const inRequest = <T>(work: () => Promise<T>) =>
    tracer().startActiveSpan('request', async (span) => {
      try {
        return await work();
      } finally {
        span.end();
      }
    });
  const spanNames = () => exporter.getFinishedSpans().map((span) => span.name);

  it('runs the method bare, with no span started, while tracing is off', async () => {
    recordSpans(false);
    const guard = new Guard();

    assert.equal(await inRequest(() => guard.check('A')), 'A checked under a span');
    assert.deepEqual(guard.calls, ['A']);
    assert.deepEqual(spanNames(), ['request']);
  });

  it("runs the method in nestjs-otel's span while tracing is on, inside a sampled request", async () => {
    recordSpans(true);

    await inRequest(() => new Guard().check('B'));
    assert.deepEqual(spanNames(), ['Guard.check', 'request']);
  });

  it('runs the method bare in a request sampled out, and outside any request', async () => {
    recordSpans(true);
    const guard = new Guard();
    const sampledOut = trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.NONE });

    await context.with(trace.setSpan(context.active(), sampledOut), () => guard.check('C'));
    assert.equal(await guard.check('D'), 'D checked under no span');
    assert.deepEqual(guard.calls, ['C', 'D']);
    assert.deepEqual(spanNames(), []);
  });

  it("keeps the method's name and the metadata Nest's decorators set on it", () => {
    const check = Object.getOwnPropertyDescriptor(Guard.prototype, 'check')?.value as () => unknown;

    assert.equal(check.name, 'check');
    assert.equal(Reflect.getMetadata(ROLE, check), 'checker');
  });
});
