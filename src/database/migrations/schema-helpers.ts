import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/*
 * What the migrations write differently on SQLite and PostgreSQL. Migrations are history: these helpers
 * must build the same schema forever, so they live here, beside the migrations, and import nothing from
 * the service's code.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run on any schema
type AnyKysely = Kysely<any>;

function isPostgres(db: AnyKysely): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An auto-incrementing integer primary key, spelled the way each engine wants it. */
export function autoIncrementKey(db: AnyKysely): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return isPostgres(db)
    ? (column) => column.primaryKey().generatedByDefaultAsIdentity()
    : (column) => column.primaryKey().autoIncrement();
}

/** Text that sorts byte by byte on both engines; PostgreSQL would otherwise follow the database's locale. */
export function bytewiseText(db: AnyKysely): RawBuilder<unknown> {
  return isPostgres(db) ? sql`text collate "C"` : sql`text`;
}

/**
 * A table whose rows are counted per value of one column and whose every write bumps a version, both kept
 * by triggers in the writing transaction, so readers need no COUNT(*) and see every write at once.
 */
export interface CountedTable {
  table: string;
  groupColumn: string;
  /** Holds `groupColumn` (its primary key) and `countColumn`; the row keyed `allRowsKey` counts every row. */
  countsTable: string;
  countColumn: string;
  allRowsKey: string;
  /** One row whose `version` column every committed write to `table` raises. */
  versionTable: string;
}

const WRITES = ['insert', 'update', 'delete'] as const;

/**
 * SQLite has only row triggers; PostgreSQL gets statement triggers over the transition tables, so a
 * batch of 1,000 rows touches each count once. Each write bumps the version before the counts: on
 * PostgreSQL, writers then queue on the version row first and cannot deadlock on the count rows.
 */
export async function createCountingTriggers(db: AnyKysely, counted: CountedTable): Promise<void> {
  const { table, groupColumn, countsTable, countColumn, allRowsKey, versionTable } = counted;
  const [t, group, counts, count, version] = [table, groupColumn, countsTable, countColumn, versionTable].map((name) => sql.id(name));
  const all = sql.lit(allRowsKey);
  const bumpVersion = sql`UPDATE ${version} SET version = version + 1`;
  if (!isPostgres(db)) {
    const add = (row: 'NEW' | 'OLD', delta: 1 | -1) =>
      sql`UPDATE ${counts} SET ${count} = ${count} + ${sql.lit(delta)} WHERE ${group} IN (${sql.raw(row)}.${group}, ${all})`;
    // Not INSERT OR IGNORE: the conflict policy of the statement that fires the trigger (an upsert's) overrides it.
    const ensureRow = sql`INSERT INTO ${counts} (${group}, ${count}) SELECT NEW.${group}, 0
      WHERE NOT EXISTS (SELECT 1 FROM ${counts} WHERE ${group} = NEW.${group})`;
    const bodies = {
      insert: sql`${bumpVersion}; ${ensureRow}; ${add('NEW', 1)};`,
      delete: sql`${bumpVersion}; ${add('OLD', -1)};`,
      // The total stays; only a change of group moves one count to another.
      update: sql`${bumpVersion}; ${ensureRow};
        UPDATE ${counts} SET ${count} = ${count} + (${group} = NEW.${group}) - (${group} = OLD.${group})
        WHERE NEW.${group} IS NOT OLD.${group} AND ${group} IN (NEW.${group}, OLD.${group});`,
    };
    for (const write of WRITES) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_counted_after_${write}`)} AFTER ${sql.raw(write.toUpperCase())} ON ${t}
                BEGIN ${bodies[write]} END`.execute(db);
    }
    return;
  }
  const changes = {
    insert: { referencing: sql`NEW TABLE AS new_rows`, rows: sql`SELECT ${group}, 1 AS delta FROM new_rows` },
    delete: { referencing: sql`OLD TABLE AS old_rows`, rows: sql`SELECT ${group}, -1 AS delta FROM old_rows` },
    update: {
      referencing: sql`OLD TABLE AS old_rows NEW TABLE AS new_rows`,
      rows: sql`SELECT ${group}, 1 AS delta FROM new_rows UNION ALL SELECT ${group}, -1 FROM old_rows`,
    },
  };
  for (const write of WRITES) {
    const name = sql.id(`${table}_counted_after_${write}`);
    // A statement that wrote no row (an upsert whose rows all clashed fires the insert trigger too) changes nothing.
    await sql`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        IF NOT EXISTS (SELECT FROM (${changes[write].rows}) AS written) THEN RETURN NULL; END IF;
        ${bumpVersion};
        INSERT INTO ${counts} (${group}, ${count})
          SELECT coalesce(${group}, ${all}), sum(delta) FROM (${changes[write].rows}) AS changed
          GROUP BY ROLLUP (${group}) HAVING sum(delta) <> 0
        ON CONFLICT (${group}) DO UPDATE SET ${count} = ${counts}.${count} + excluded.${count};
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER ${name} AFTER ${sql.raw(write.toUpperCase())} ON ${t}
              REFERENCING ${changes[write].referencing} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`.execute(db);
  }
  // TRUNCATE fires no delete trigger.
  const truncated = sql.id(`${table}_counted_after_truncate`);
  await sql`CREATE FUNCTION ${truncated}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN ${bumpVersion}; UPDATE ${counts} SET ${count} = 0; RETURN NULL; END $$`.execute(db);
  await sql`CREATE TRIGGER ${truncated} AFTER TRUNCATE ON ${t} FOR EACH STATEMENT EXECUTE FUNCTION ${truncated}()`.execute(db);
}

export async function dropCountingTriggers(db: AnyKysely, { table }: CountedTable): Promise<void> {
  for (const write of [...WRITES, ...(isPostgres(db) ? (['truncate'] as const) : [])]) {
    const name = sql.id(`${table}_counted_after_${write}`);
    await (isPostgres(db) ? sql`DROP FUNCTION ${name}() CASCADE` : sql`DROP TRIGGER ${name}`).execute(db);
  }
}
