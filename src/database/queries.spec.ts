import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { precompile } from './queries';

interface Tables {
  t: { id: number; name: string; kind: string };
}

function database(): Kysely<Tables> {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.exec("create table t (id integer primary key, name text, kind text); insert into t values (1, 'one', 'odd'), (2, 'two', 'even')");
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: sqlite }) });
}

describe('precompile', () => {
  it('compiles the query once and runs it with the values of each call, the query’s own constants kept', async () => {
    const db = database();
    const rename = precompile(({ id, name }: { id: number; name: string }) =>
      db.updateTable('t').set({ name, kind: 'renamed' }).where('id', '=', id).where('kind', '!=', 'renamed').returning(['id', 'name', 'kind']),
    );
    const built = db.updateTable('t').set({ name: 'x', kind: 'renamed' }).where('id', '=', 2).where('kind', '!=', 'renamed').returning(['id', 'name', 'kind']).compile();
    assert.equal(rename({ id: 2, name: 'x' }).sql, built.sql);
    assert.deepEqual(rename({ id: 2, name: 'x' }).parameters, built.parameters);
    assert.deepEqual((await db.executeQuery(rename({ id: 2, name: 'deux' }))).rows, [{ id: 2, name: 'deux', kind: 'renamed' }]);
    assert.deepEqual((await db.executeQuery(rename({ id: 2, name: 'zwei' }))).rows, []);
    assert.deepEqual((await db.executeQuery(rename({ id: 1, name: 'un' }))).rows, [{ id: 1, name: 'un', kind: 'renamed' }]);
    await db.destroy();
  });

  it('refuses a value that the query does not take as a parameter', async () => {
    const db = database();
    assert.throws(
      () => precompile(({ name, byName }: { name: string; byName: boolean }) => db.selectFrom('t').select('id').where(byName ? 'name' : 'kind', '=', name)),
      /does not take byName as a parameter/,
    );
    await db.destroy();
  });

  it('refuses a builder that branches on whether a value is there: it would compile one arm for every call', async () => {
    const db = database();
    const branching = [
      ({ kind }: { kind: string | null }) => (kind ? db.selectFrom('t').select('id').where('kind', '=', kind) : db.selectFrom('t').select('id')),
      ({ kind }: { kind: string | null }) => db.selectFrom('t').select('id').where(kind === null ? 'name' : 'kind', '=', kind ?? 'none'),
    ];
    for (const build of branching) {
      assert.throws(() => precompile(build), /the query's shape depends on a value/);
    }
    await db.destroy();
  });

  it('refuses a builder that compares a value or writes it into the SQL', async () => {
    const db = database();
    assert.throws(
      () => precompile(({ id }: { id: number }) => db.selectFrom('t').select('id').where('id', id > 1 ? '>' : '<', id)),
      /id is a placeholder while the query is built/,
    );
    assert.throws(() => precompile(({ name }: { name: string }) => db.selectFrom('t').select('id').where('name', '=', `${name}%`)), /name is a placeholder/);
    await db.destroy();
  });

  it('refuses a spread of the values, which would see none of them', async () => {
    const db = database();
    assert.throws(() => precompile((values: { name: string; kind: string }) => db.updateTable('t').set({ ...values })), /read each value by its name/);
    await db.destroy();
  });
});
