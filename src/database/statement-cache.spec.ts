import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { StatementCachingDatabase } from './statement-cache';

/** An in-memory database whose prepare() calls are counted. */
function countingDatabase(): { database: Database; prepared: string[] } {
  const database = new BetterSqlite3(':memory:');
  database.exec('create table t (id integer primary key, name text)');
  const prepared: string[] = [];
  const prepare = database.prepare.bind(database);
  database.prepare = ((text: string) => {
    prepared.push(text);
    return prepare(text);
  });
  return { database, prepared };
}

describe('StatementCachingDatabase', () => {
  it('prepares each SQL text once and reuses its statement, with the right results every time', async () => {
    const { database, prepared } = countingDatabase();
    const db = new Kysely<{ t: { id: number; name: string } }>({ dialect: new SqliteDialect({ database: new StatementCachingDatabase(database) }) });
    for (let id = 1; id <= 5; id++) {
      await db.insertInto('t').values({ id, name: `n${id}` }).execute();
    }
    for (let id = 1; id <= 5; id++) {
      const row = await db.selectFrom('t').select('name').where('id', '=', id).executeTakeFirst();
      assert.equal(row?.name, `n${id}`);
    }
    const updated = await db.updateTable('t').set({ name: 'x' }).where('id', '>', 3).executeTakeFirst();
    assert.equal(updated.numUpdatedRows, 2n);
    assert.equal(prepared.length, 3, 'one insert, one select, one update');
    await db.destroy();
  });

  it('keeps at most its capacity, starting afresh when full', () => {
    const { database, prepared } = countingDatabase();
    const cache = new StatementCachingDatabase(database, 2);
    cache.prepare('select 1');
    cache.prepare('select 2');
    cache.prepare('select 1');
    assert.deepEqual(prepared, ['select 1', 'select 2']);
    cache.prepare('select 3');
    cache.prepare('select 3');
    cache.prepare('select 1');
    assert.deepEqual(prepared.slice(2), ['select 3', 'select 1'], 'full at select 3: emptied, then select 3 and select 1 kept');
    cache.close();
  });

  it('gives a fresh statement while the cached one is still being iterated', () => {
    const { database } = countingDatabase();
    database.exec("insert into t values (1, 'a'), (2, 'b')");
    const cache = new StatementCachingDatabase(database);
    const outer = cache.prepare('select name from t order by id');
    const names: unknown[] = [];
    for (const row of outer.iterate([])) {
      names.push(row, cache.prepare('select name from t order by id').all([]));
    }
    assert.deepEqual(names, [{ name: 'a' }, [{ name: 'a' }, { name: 'b' }], { name: 'b' }, [{ name: 'a' }, { name: 'b' }]]);
    cache.close();
  });

  it('streams rows through Kysely, and closing it closes the database', async () => {
    const { database } = countingDatabase();
    const db = new Kysely<{ t: { id: number; name: string } }>({ dialect: new SqliteDialect({ database: new StatementCachingDatabase(database) }) });
    await db.insertInto('t').values([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]).execute();
    const streamed: string[] = [];
    for await (const row of db.selectFrom('t').select('name').orderBy('id').stream()) {
      streamed.push(row.name);
    }
    assert.deepEqual(streamed, ['a', 'b']);
    const { rows } = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
    assert.equal(rows[0].n, 2);
    await db.destroy();
    assert.equal(database.open, false, 'destroy closes the database');
  });
});
