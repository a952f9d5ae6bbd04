import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SetMetadata } from '@nestjs/common';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Span } from './span';

const ROLE = 'role';

class Guard {
  readonly calls: string[] = [];
  /** The span active inside each call: the caller's own when the method runs bare. */
  readonly activeSpans: unknown[] = [];

  @Span()
  @SetMetadata(ROLE, 'checker')
  async check(who: string): Promise<string> {
    this.calls.push(who);
    this.activeSpans.push(trace.getActiveSpan());
    return `${who} checked under ${trace.getActiveSpan() ? 'a span' : 'no span'}`;
  }
}

describe('Span', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  after(() => {
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  const tracer = () => trace.getTracer('test');
  /** Runs `work` as the active span of a request (sampled, when a provider records), and gives that span too. */
  const inRequest = <T>(work: () => Promise<T>) =>
    tracer().startActiveSpan('request', async (span) => {
      try {
        return { result: await work(), span };
      } finally {
        span.end();
      }
    });
  const spanNames = () => exporter.getFinishedSpans().map((span) => span.name);

  it('runs the method bare, under the caller\'s span and no span of its own, while tracing is off (no tracer provider)', async () => {
    trace.disable();
    try {
      const guard = new Guard();
      const { result, span } = await inRequest(() => guard.check('A'));

      assert.equal(result, 'A checked under a span');
      assert.deepEqual(guard.calls, ['A']);
      assert.equal(guard.activeSpans[0], span);
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
    assert.deepEqual(spanNames(), []);
  });

  it("runs the method in nestjs-otel's span while tracing is on, inside a sampled request", async () => {
    const guard = new Guard();
    const { span } = await inRequest(() => guard.check('B'));

    assert.notEqual(guard.activeSpans[0], span);
    assert.deepEqual(spanNames(), ['Guard.check', 'request']);
  });

  it('runs the method bare in a request sampled out, and outside any request', async () => {
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
