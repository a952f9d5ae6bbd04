import { Kysely, sql } from 'kysely';
import { type CountedTable, createCountingTriggers, dropCountingTriggers } from './schema-helpers';

/** The `vessel_counts` key whose row counts every vessel (the fleet module reads it as ALL_SECTORS). */
const ALL_SECTORS = '*';

const VESSELS_COUNTED: CountedTable = {
  table: 'vessels',
  groupColumn: 'sector',
  countsTable: 'vessel_counts',
  countColumn: 'vessel_count',
  allRowsKey: ALL_SECTORS,
  versionTable: 'vessel_data_version',
};

/** The tables this migration reads and writes, as they were when it was written. */
interface Schema {
  vessels: { sector: string };
  vessel_counts: { sector: string; vessel_count: number };
  vessel_data_version: { id: number; version: number };
}

/**
 * Counts of vessels per sector and in all, and a version of the vessels' data, kept by triggers, so the
 * fleet listing reads one row instead of COUNT(*) and knows whether anything changed. The triggers come
 * first: on PostgreSQL creating them locks out writers until this migration commits, so the counts taken
 * after them are exact.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(migrating: Kysely<any>): Promise<void> {
  const db = migrating as Kysely<Schema>;
  await db.schema
    .createTable('vessel_counts')
    .addColumn('sector', 'text', (col) => col.primaryKey())
    .addColumn('vessel_count', 'integer', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('vessel_data_version')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('version', 'bigint', (col) => col.notNull())
    .addCheckConstraint('vessel_data_version_one_row', sql`id = 1`)
    .execute();
  await createCountingTriggers(db, VESSELS_COUNTED);

  await db.insertInto('vessel_data_version').values({ id: 1, version: 1 }).execute();
  await db
    .insertInto('vessel_counts')
    .columns(['sector', 'vessel_count'])
    .expression(db.selectFrom('vessels').select((eb) => ['sector', eb.fn.countAll<number>().as('vessel_count')]).groupBy('sector'))
    .execute();
  await db
    .insertInto('vessel_counts')
    .columns(['sector', 'vessel_count'])
    .expression(db.selectFrom('vessels').select((eb) => [eb.val(ALL_SECTORS).as('sector'), eb.fn.countAll<number>().as('vessel_count')]))
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await dropCountingTriggers(db, VESSELS_COUNTED);
  await db.schema.dropTable('vessel_data_version').execute();
  await db.schema.dropTable('vessel_counts').execute();
}
