import { trace } from '@opentelemetry/api';

/**
 * Whether the caller runs inside a span that is recorded: a sampled request. False with tracing off (no
 * SDK, so no span is ever active), in a request the sampler left out, and in work outside any request.
 * What the service traces by hand (guards, the audit append, SQLite statements) starts a span only then,
 * as PostgreSQL's and Redis's instrumentations do with `requireParentSpan`.
 */
export function insideRecordedWork(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}
