import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { insideRecordedWork } from '../common';

const tracer = trace.getTracer('fleet-registry');

/** The statement's first word, as @opentelemetry/instrumentation-pg names PostgreSQL's statements' spans. */
function operationOf(sql: string): string {
  return /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
}

/**
 * A commit group's own statements, around each transaction it holds: half of a decision's statements,
 * and nothing a reader of its trace asks about.
 */
const COMMIT_GROUP_PLUMBING = /^\s*(savepoint|release|rollback to)\b/i;

/** A span for a statement run inside recorded work, and none for a commit group's savepoints. */
function statementSpan(sql: string): Span | undefined {
  if (!insideRecordedWork() || COMMIT_GROUP_PLUMBING.test(sql)) {
    return undefined;
  }
  return tracer.startSpan(operationOf(sql), { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'sqlite', 'db.query.text': sql } });
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

function traced<T>(sql: string, run: () => T): T {
  const span = statementSpan(sql);
  if (!span) {
    return run();
  }
  try {
    return run();
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** A stream's span lasts as long as its rows are read. */
function* tracedRows(sql: string, rows: () => IterableIterator<unknown>): IterableIterator<unknown> {
  const span = statementSpan(sql);
  try {
    yield* rows();
  } catch (error) {
    if (span) {
      failed(span, error);
    }
    throw error;
  } finally {
    span?.end();
  }
}

/**
 * The database Kysely's SqliteDialect sees, with a span for each statement, described as
 * @opentelemetry/instrumentation-pg describes PostgreSQL's (db.system.name, db.query.text). The
 * instrumentation of better-sqlite3 on npm (opentelemetry-plugin-better-sqlite3 1.13) declares
 * better-sqlite3 12 at most and an older SDK, so the service has its own. better-sqlite3 runs a statement
 * synchronously: its span is exactly its run.
 * Used only when traces are on.
 */
export class TracedSqliteDatabase implements SqliteDatabase {
  constructor(private readonly database: SqliteDatabase) {}

  prepare(sql: string): SqliteStatement {
    const statement = this.database.prepare(sql);
    return {
      reader: statement.reader,
      all: (parameters) => traced(sql, () => statement.all(parameters)),
      run: (parameters) => traced(sql, () => statement.run(parameters)),
      iterate: (parameters) => tracedRows(sql, () => statement.iterate(parameters)),
    };
  }

  close(): void {
    this.database.close();
  }
}
