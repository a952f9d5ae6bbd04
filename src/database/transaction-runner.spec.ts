import 'reflect-metadata';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Kysely, sql } from 'kysely';
import { Client } from 'pg';
import { createDatabase } from './create-database';
import type { DB } from './database.types';
import { TransactionRunner } from './transaction-runner';

const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };
const POSTGRES_URL = process.env.TEST_DATABASE_URL;

const names = async (db: Kysely<DB>) => (await sql<{ name: string }>`select name from t order by name`.execute(db)).rows.map((row) => row.name);
const insert = (db: Kysely<DB>, name: string) => sql`insert into t (name) values (${name})`.execute(db);

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

    it('opens a transaction of its own for work that follows a finished one', async () => {
      await sut.run((trx) => insert(trx, 'first'));
      await sut.run((trx) => insert(trx, 'second'));
      assert.deepEqual(await names(db), ['first', 'inner', 'outer', 'second']);
    });
  });
}

suite('sqlite', async () => {
  const db = createDatabase({ dialect: 'sqlite', path: ':memory:' });
  return { db, close: () => db.destroy() };
});

if (POSTGRES_URL) {
  suite('postgres', async () => {
    const schema = `runner_test_${randomBytes(6).toString('hex')}`;
    const admin = new Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    // One connection: a nested run that opened a transaction of its own would wait for it forever.
    const db = createDatabase({ dialect: 'postgres', url: url.toString(), poolSize: 1, timeouts: TIMEOUTS });
    return {
      db,
      close: async () => {
        await db.destroy();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      },
    };
  });
}
