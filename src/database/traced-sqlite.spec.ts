import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { context, type Span, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { CommitGroup } from './commit-group';
import type { DB } from './database.types';
import { TracedSqliteDatabase } from './traced-sqlite';

describe('SQLite statements in traces', () => {
  const exporter = new InMemorySpanExporter();
  const contextManager = new AsyncLocalStorageContextManager();
  const tracer = () => trace.getTracer('test');
  let db: Kysely<DB>;

  before(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }));
    const sqlite = new BetterSqlite3(':memory:');
    sqlite.exec('create table t (name text primary key)');
    db = new Kysely<DB>({ dialect: new SqliteDialect({ database: new TracedSqliteDatabase(sqlite) }) });
  });
  after(async () => {
    await db.destroy();
    trace.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());

  /** Runs `work` as the active span `name`, as a request's handler runs inside the request's span. */
  const inSpan = <T>(name: string, work: (span: Span) => Promise<T>) =>
    tracer().startActiveSpan(name, async (span) => {
      try {
        return await work(span);
      } finally {
        span.end();
      }
    });
  const statementSpans = () => exporter.getFinishedSpans().filter((span) => span.attributes['db.system.name'] === 'sqlite');

  it('gives each statement run inside a span a child span: its operation, SQLite, and its text with placeholders', async () => {
    const parent = await inSpan('request', async (span) => {
      await sql`insert into t (name) values (${'a'})`.execute(db);
      await sql`select name from t where name = ${'a'}`.execute(db);
      return span.spanContext().spanId;
    });
    assert.deepEqual(
      statementSpans().map((span) => [span.name, span.attributes['db.query.text'], span.parentSpanContext?.spanId]),
      [
        ['INSERT', 'insert into t (name) values (?)', parent],
        ['SELECT', 'select name from t where name = ?', parent],
      ],
    );
  });

  it('gives a statement outside any span none, nor one inside a span sampled out', async () => {
    await sql`select 1`.execute(db);
    const sampledOut = trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.NONE });
    await context.with(trace.setSpan(context.active(), sampledOut), () => sql`select 2`.execute(db));
    assert.deepEqual(statementSpans(), []);
  });

  it("marks a failed statement's span as an error, and a stream's span ends with its last row", async () => {
    await inSpan('request', async () => {
      await sql`insert into t (name) values (${'twice'})`.execute(db);
      await assert.rejects(sql`insert into t (name) values (${'twice'})`.execute(db));
      for await (const row of db.selectFrom('t' as never).selectAll().stream()) {
        assert.ok(row);
      }
    });
    const [inserted, failed, streamed] = statementSpans();
    assert.equal(inserted.status.code, SpanStatusCode.UNSET);
    assert.equal(failed.status.code, SpanStatusCode.ERROR);
    assert.match(failed.status.message ?? '', /UNIQUE constraint failed/);
    assert.equal(streamed.attributes['db.query.text'], 'select * from "t"');
  });

  it("runs each transaction of a commit group in its own caller's trace, not in the one that opened the group", async () => {
    const group = new CommitGroup(db);
    const callers = await Promise.all(
      ['first', 'second'].map((name) =>
        inSpan(name, async (span) => {
          await group.run((trx) => sql`insert into t (name) values (${name})`.execute(trx));
          return span.spanContext().spanId;
        }),
      ),
    );
    const inserts = statementSpans().filter((span) => span.name === 'INSERT');
    assert.deepEqual(inserts.map((span) => span.parentSpanContext?.spanId), callers);
  });

  it("gives a commit group's savepoints no span: the transaction's own statements, and the group's BEGIN and COMMIT", async () => {
    const group = new CommitGroup(db);
    await inSpan('request', () => group.run((trx) => sql`insert into t (name) values (${'plumbing'})`.execute(trx)));
    assert.deepEqual(
      statementSpans().map((span) => span.name),
      ['BEGIN', 'INSERT', 'COMMIT'],
    );
  });
});
