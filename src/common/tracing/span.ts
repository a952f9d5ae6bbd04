import { trace } from '@opentelemetry/api';
import { Span as OtelSpan } from 'nestjs-otel';

let spansRecorded = false;

/** Set by the tracing module when its SDK starts and when it stops. */
export function recordSpans(on: boolean): void {
  spansRecorded = on;
}

type SpanOptions<Params extends unknown[]> = Parameters<typeof OtelSpan<Params>>[1];

/**
 * nestjs-otel's `@Span`, taken only while tracing is on and the work that calls it is recorded: a request
 * that is sampled out, or work outside any request, runs the method bare. Otherwise its wrapper still
 * starts a non-recording span, enters a context and chains three callbacks onto every promise, on every
 * call: microseconds per guard and request that buy nothing when nothing records them. A child of a
 * recorded span is sampled by the parent-based samplers and by the ratio sampler (same trace id) alike.
 */
export function Span<Params extends unknown[]>(name?: string, options?: SpanOptions<Params>) {
  const traced = name === undefined ? OtelSpan<Params>() : OtelSpan<Params>(name, options);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any method's result, as nestjs-otel's own signature
  return (target: object, key: PropertyKey, descriptor: TypedPropertyDescriptor<(...params: Params) => any>): void => {
    const bare = descriptor.value;
    traced(target, key, descriptor);
    const spanned = descriptor.value;
    if (!bare || !spanned) {
      return;
    }
    const gated = {
      [bare.name](this: unknown, ...params: Params) {
        return (spansRecorded && trace.getActiveSpan()?.isRecording() ? spanned : bare).apply(this, params) as unknown;
      },
    }[bare.name];
    for (const metadataKey of Reflect.getMetadataKeys(bare)) {
      Reflect.defineMetadata(metadataKey, Reflect.getMetadata(metadataKey, bare), gated);
    }
    descriptor.value = gated;
  };
}
