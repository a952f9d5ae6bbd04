import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { SetMetadata } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
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

  it('runs the method bare, with no span started, while tracing is off', async () => {
    recordSpans(false);
    const guard = new Guard();

    assert.equal(await guard.check('A'), 'A checked under no span');
    assert.deepEqual(guard.calls, ['A']);
    assert.deepEqual(exporter.getFinishedSpans(), []);
  });

  it("runs the method in nestjs-otel's span while tracing is on", async () => {
    recordSpans(true);
    const guard = new Guard();

    assert.equal(await guard.check('B'), 'B checked under a span');
    assert.deepEqual(
      exporter.getFinishedSpans().map((span) => span.name),
      ['Guard.check'],
    );
  });

  it("keeps the method's name and the metadata Nest's decorators set on it", () => {
    const check = Object.getOwnPropertyDescriptor(Guard.prototype, 'check')?.value as () => unknown;

    assert.equal(check.name, 'check');
    assert.equal(Reflect.getMetadata(ROLE, check), 'checker');
  });
});
