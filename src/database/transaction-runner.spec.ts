import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kysely, sql } from 'kysely';
import { createDatabase } from './create-database';
import type { DB } from './database.types';
import { TransactionRunner } from './transaction-runner';
import { createTestDatabase, testEngines } from '../../test/support/databases';

const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };

const names = async (db: Kysely<DB>) => (await sql<{ name: string }>`select name from t order by name`.execute(db)).rows.map((row) => row.name);
const insert = (db: Kysely<DB>, name: string) => sql`insert into t (name) values (${name})`.execute(db);
const remove = (db: Kysely<DB>, ...removed: string[]) => sql`delete from t where name in (${sql.join(removed)})`.execute(db);

function suite(engine: string, open: () => Promise<{ db: Kysely<DB>; close: () => Promise<void> }>) {
  describe(`TransactionRunner [${engine}]`, { timeout: 10_000 }, () => {
    let db: Kysely<DB>;
    let close: () => Promise<void>;
    let sut: TransactionRunner;
    before(async () => {
      ({ db, close } = await open());
      await sql`create table t (name text primary key)`.execute(db);
      sut = new TransactionRunner(db);
    });
    after(() => close());

    it('runs a nested run in the outer transaction: both commit together', async () => {
      const inner = await sut.run(async (outer) => {
        await insert(outer, 'outer');
        return sut.run(async (trx) => {
          assert.equal(trx, outer);
          await insert(trx, 'inner');
          return 'inner done';
        });
      });
      assert.equal(inner, 'inner done');
      assert.deepEqual(await names(db), ['inner', 'outer']);
    });

    it('rolls back the nested work with the outer transaction when the outer one fails', async () => {
      await assert.rejects(
        sut.run(async (outer) => {
          await sut.run((trx) => insert(trx, 'lost inner'));
          await insert(outer, 'lost outer');
          throw new Error('outer fails');
        }),
        /outer fails/,
      );
      assert.deepEqual(await names(db), ['inner', 'outer']);
    });

    it('gives a read the transaction open in its context, and the database outside one', async () => {
      assert.equal(sut.executor(), db);
      await sut.run(async (trx) => {
        assert.equal(sut.executor(), trx);
        await insert(trx, 'seen inside');
        assert.ok((await names(sut.executor())).includes('seen inside'));
        await remove(trx, 'seen inside');
      });
      assert.equal(sut.executor(), db);
    });

    it('joins the outer transaction from another runner of the same database', async () => {
      const other = new TransactionRunner(db);
      await sut.run(async (outer) => other.run(async (trx) => assert.equal(trx, outer)));
    });

    it('runs afterCommit tasks once the transaction has committed, before run resolves; one that fails fails the run, not the commit', async () => {
      const seen: string[][] = [];
      await sut.run(async (trx) => {
        await insert(trx, 'committed first');
        sut.afterCommit(async () => {
          seen.push(await names(db));
        });
      });
      assert.ok(seen[0]?.includes('committed first'), 'the task saw the commit');
      await assert.rejects(
        sut.run(async (trx) => {
          await insert(trx, 'kept');
          sut.afterCommit(async () => {
            throw new Error('task fails');
          });
        }),
        /task fails/,
      );
      assert.ok((await names(db)).includes('kept'));
      await remove(db, 'committed first', 'kept');
    });

    it('runs a single statement in the outer transaction when there is one, and commits it by itself otherwise', async () => {
      await assert.rejects(
        sut.run(async () => {
          await sut.runStatement((executor) => insert(executor, 'rolled back statement'));
          throw new Error('outer fails');
        }),
        /outer fails/,
      );
      let ran = false;
      await sut.runStatement(async (executor) => {
        await insert(executor, 'statement');
        sut.afterCommit(async () => {
          ran = true;
        });
      });
      assert.ok(ran);
      assert.deepEqual(await names(db), ['inner', 'outer', 'statement']);
      await remove(db, 'statement');
    });

    it('undoes what work run in a savepoint wrote when it fails, and not what it asked to run after the commit, and commits the rest', async () => {
      const ran: string[] = [];
      await sut.run(async (trx) => {
        await insert(trx, 'before the savepoint');
        await assert.rejects(
          sut.undoOnFailure(async () => {
            await insert(trx, 'undone');
            sut.afterCommit(async () => {
              ran.push('undone');
            });
            throw new Error('work fails');
          }),
          /work fails/,
        );
        assert.equal(await sut.undoOnFailure(() => insert(trx, 'in a savepoint kept').then(() => 'kept')), 'kept');
      });
      assert.deepEqual(ran, []);
      assert.deepEqual(await names(db), ['before the savepoint', 'in a savepoint kept', 'inner', 'outer']);
      await remove(db, 'before the savepoint', 'in a savepoint kept');
    });

    it('opens a transaction of its own for work that follows a finished one', async () => {
      await sut.run((trx) => insert(trx, 'first'));
      await sut.run((trx) => insert(trx, 'second'));
      assert.deepEqual(await names(db), ['first', 'inner', 'outer', 'second']);
    });
  });
}

for (const engine of testEngines()) {
  suite(engine, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'transaction-runner-'));
    const database = await createTestDatabase(engine, dir);
    // One connection on PostgreSQL: a nested run that opened a transaction of its own would wait for it forever.
    const db = createDatabase(engine === 'sqlite' ? { dialect: 'sqlite', path: ':memory:' } : { dialect: 'postgres', url: database.url, poolSize: 1, timeouts: TIMEOUTS });
    return {
      db,
      close: async () => {
        await db.destroy();
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}
