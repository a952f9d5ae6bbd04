import type { Insertable, Kysely, SelectQueryBuilder, Simplify } from 'kysely';
import type { DB } from './database.types';

export interface Page<Row> {
  rows: Row[];
  /** Every row the filter matches, not only those of this page. */
  total: number;
}

/**
 * One page of a filtered query and the filter's total, read together.
 * `shape` adds the columns and the order; the count runs on the bare filter.
 */
export async function selectPage<TB extends keyof DB, Row>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  shape: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  window: { limit: number; offset: number },
): Promise<Page<Row>> {
  const [rows, counted] = await Promise.all([
    shape(filtered).limit(window.limit).offset(window.offset).execute(),
    filtered.select((eb) => eb.fn.countAll<number | bigint>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(counted.total) };
}

/** A page of an ordered listing: `limit` rows, `offset` rows in (a keyset listing starts it with its own filter instead). */
export interface PageWindow {
  limit: number;
  offset?: number;
}

/** One page of an ordered query, and whether more rows follow it: read as one row more than the page shows. */
export async function readPage<TB extends keyof DB, Row>(ordered: SelectQueryBuilder<DB, TB, Row>, window: PageWindow): Promise<{ rows: Simplify<Row>[]; more: boolean }> {
  const rows = await ordered
    .limit(window.limit + 1)
    .offset(window.offset ?? 0)
    .execute();
  return { rows: rows.slice(0, window.limit), more: rows.length > window.limit };
}

/** Any table, its rows as plain records: Kysely cannot follow a column name through a generic table. */
type Value = string | number | null;
type AnyTables = Record<string, Record<string, Value>>;

/** Every row of the table in `key` order, read in batches of `batchSize` that each start after the last key seen. */
export async function* readInKeyOrder<T extends keyof DB>(
  db: Kysely<DB>,
  table: T,
  key: keyof DB[T] & string,
  columns: readonly (keyof DB[T] & string)[],
  batchSize = 1_000,
): AsyncGenerator<Record<string, Value>[]> {
  const keyColumn: string = key;
  let after: Value | undefined;
  for (;;) {
    const batch = await db.withTables<AnyTables>()
      .selectFrom(table as string)
      .select(columns as readonly string[])
      .$if(after !== undefined, (query) => query.where(keyColumn, '>', after as Value))
      .orderBy(keyColumn)
      .limit(batchSize)
      .execute();
    if (batch.length === 0) {
      return;
    }
    yield batch;
    after = batch[batch.length - 1][keyColumn];
  }
}

export async function countRows(db: Kysely<DB>, table: keyof DB): Promise<number> {
  const { total } = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** Rows per INSERT: at 8 columns, well under the bound-parameter limits of SQLite (32,766) and PostgreSQL (65,535). */
const UPSERT_BATCH = 1_000;

export interface UpsertCounts {
  inserted: number;
  /** Rows whose key was already there, now overwritten. */
  updated: number;
}

/**
 * Inserts the rows, or on a clash of `key` overwrites every other column with the new values. The
 * keys already present are counted first, in the same transaction, the same way on both engines.
 */
export async function upsertRows<T extends keyof DB>(
  executor: Kysely<DB>,
  table: T,
  key: keyof DB[T] & string,
  rows: Insertable<DB[T]>[],
): Promise<UpsertCounts> {
  const counts: UpsertCounts = { inserted: 0, updated: 0 };
  for (let start = 0; start < rows.length; start += UPSERT_BATCH) {
    const batch = rows.slice(start, start + UPSERT_BATCH);
    const keyColumn: string = key;
    const keys = batch.map((row) => (row as Record<string, Value>)[keyColumn]);
    const existing = await executor.withTables<AnyTables>()
      .selectFrom(table as string)
      .select((eb) => eb.fn.countAll<number | bigint>().as('total'))
      .where(keyColumn, 'in', keys)
      .executeTakeFirstOrThrow();
    counts.updated += Number(existing.total);
    counts.inserted += batch.length - Number(existing.total);
    const columns = [...new Set(batch.flatMap((row) => Object.keys(row)))].filter((column) => column !== key);
    await executor
      .insertInto(table)
      .values(batch)
      .onConflict((conflict) =>
        conflict
          .column(key as never)
          .doUpdateSet((eb) => Object.fromEntries(columns.map((column) => [column, eb.ref(`excluded.${column}` as never)])) as never),
      )
      .execute();
  }
  return counts;
}
