import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { type ReceivedSpan, startOtlpReceiver } from './support/otlp-receiver';
import { startServer } from './support/processes';
import { tokenServiceFor } from './support/tokens';

const SECRET = 'tracing-test-secret-of-at-least-32-chars';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const REQUEST_ID = 'tracing-test-decommission';
const SERVER_KIND = 2;
const GUARDS = ['ForwardedForGuard', 'RequestLimitGuard', 'AuthenticationGuard', 'ClearanceGuard', 'BodyErrorGuard'];

describeEachDatabase('OpenTelemetry traces of a decommission', (engine) => {
  let cwd: string;
  let database: TestDatabase;
  let spans: ReceivedSpan[];

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-tracing-'));
    database = await createTestDatabase(engine, cwd);
    const receiver = await startOtlpReceiver();
    const server = await startServer({
      cwd,
      env: {
        JWT_SECRET: SECRET,
        DATABASE_URL: database.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // Nothing is exported before the shutdown, which must export what is left.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
    });
    try {
      const token = tokenServiceFor({ JWT_SECRET: SECRET }).issue('officer-7', 7, '1h');
      const res = await fetch(`${server.url}/v1/assets/TIE-0001`, {
        method: 'DELETE',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'X-Request-Id': REQUEST_ID,
          traceparent: `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`,
        },
        body: JSON.stringify(DECOMMISSION_BODY),
      });
      assert.equal(res.status, 200, await res.text());
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
      await receiver.close();
    }
    spans = receiver.spans().filter((span) => span.traceId === TRACE_ID);
  });
  after(async () => {
    await database.drop();
    rmSync(cwd, { recursive: true, force: true });
  });

  const described = () => spans.map(({ name, spanId, parentSpanId }) => `${name} ${spanId} <- ${parentSpanId}`).join('\n');
  const requestSpan = () => {
    const servers = spans.filter((span) => span.kind === SERVER_KIND);
    assert.equal(servers.length, 1, described());
    return servers[0];
  };
  /** Whether `span` lies under `ancestor` in the trace. */
  const isUnder = (span: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
    const parent = spans.find((candidate) => candidate.spanId === span.parentSpanId);
    return parent !== undefined && (parent === ancestor || isUnder(parent, ancestor));
  };
  const named = (name: string) => {
    const found = spans.filter((span) => span.name === name);
    assert.equal(found.length, 1, `one span ${name} in:\n${described()}`);
    return found[0];
  };

  it("answers in the caller's trace with one server span: route, status and request id, exported at shutdown", () => {
    const request = requestSpan();
    assert.equal(request.parentSpanId, CALLER_SPAN_ID);
    assert.equal(request.name, 'DELETE /v1/assets/:asset_id');
    assert.equal(request.attributes['http.route'], '/v1/assets/:asset_id');
    assert.equal(request.attributes['http.response.status_code'], 200);
    assert.deepEqual(request.attributes['http.response.header.x-request-id'], [REQUEST_ID]);
    assert.equal(request.resource['service.name'], 'fleet-registry');
  });

  it('has a span for each global guard, under the request', () => {
    for (const guard of GUARDS) {
      assert.ok(isUnder(named(`${guard}.canActivate`), requestSpan()), guard);
    }
  });

  it("has the asset's change and the audit append in the request's trace, the event's statement under the append", () => {
    const append = named('audit.append');
    const request = requestSpan();
    assert.ok(isUnder(append, request));
    assert.equal(append.attributes['audit.action'], 'asset.decommission');
    assert.equal(append.attributes['audit.outcome'], 'allowed');
    const statements = spans.filter((span) => typeof span.attributes['db.query.text'] === 'string' && isUnder(span, request));
    const system = engine === 'sqlite' ? 'sqlite' : 'postgresql';
    assert.ok(statements.every((span) => span.attributes['db.system.name'] === system), described());
    const text = (span: ReceivedSpan) => String(span.attributes['db.query.text']);
    const change = statements.filter((span) => /update "assets"/.test(text(span)));
    assert.equal(change.length, 1, statements.map(text).join('\n'));
    assert.ok(!isUnder(change[0], append), 'the change is the assets repository\'s, beside the append');
    const event = statements.filter((span) => /insert into "?audit_(events|pending)"?/.test(text(span)));
    assert.equal(event.length, 1, statements.map(text).join('\n'));
    assert.ok(isUnder(event[0], append), described());
  });
});

describe('OpenTelemetry switched off', () => {
  it('loads no part of the SDK when no OTEL_* variable asks for traces', async () => {
    const instrument = join(__dirname, '..', 'src', 'instrument.js');
    const script = `require(${JSON.stringify(instrument)}); console.log(Object.keys(require.cache).filter((path) => path.includes('@opentelemetry/sdk')).length)`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { env: { PATH: process.env.PATH } });
    assert.equal(stdout.trim(), '0');
  });
});
