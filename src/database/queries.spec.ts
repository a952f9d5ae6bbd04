import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { withParameters } from './queries';

describe('withParameters', () => {
  it('runs a query compiled once with other values, and refuses a different number of them', async () => {
    const database = new BetterSqlite3(':memory:');
    database.exec("create table t (id integer primary key, name text); insert into t values (1, 'one'), (2, 'two')");
    const db = new Kysely<{ t: { id: number; name: string } }>({ dialect: new SqliteDialect({ database }) });
    const byId = db.selectFrom('t').select('name').where('id', '=', 0).compile();
    assert.deepEqual((await db.executeQuery(withParameters(byId, [2]))).rows, [{ name: 'two' }]);
    assert.deepEqual((await db.executeQuery(withParameters(byId, [1]))).rows, [{ name: 'one' }]);
    assert.throws(() => withParameters(byId, [1, 2]), /takes 1 parameters, not 2/);
    await db.destroy();
  });
});
