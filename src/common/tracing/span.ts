import { Span as OtelSpan } from 'nestjs-otel';
import { insideRecordedWork } from './recorded-work';

type SpanOptions<Params extends unknown[]> = Parameters<typeof OtelSpan<Params>>[1];

/**
 * nestjs-otel's `@Span`, taken only inside recorded work (insideRecordedWork): with tracing off, in a
 * request that is sampled out, or outside any request, the method runs bare. Otherwise its wrapper still
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
        return (insideRecordedWork() ? spanned : bare).apply(this, params) as unknown;
      },
    }[bare.name];
    for (const metadataKey of Reflect.getMetadataKeys(bare)) {
      Reflect.defineMetadata(metadataKey, Reflect.getMetadata(metadataKey, bare), gated);
    }
    descriptor.value = gated;
  };
}
