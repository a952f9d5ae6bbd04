import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { atGroupEnd, CommitGroup, type GroupEnd } from './commit-group';
import type { DB } from './database.types';

interface Recorded {
  db: Kysely<DB>;
  /** Every statement the database was given, in order. */
  statements: string[];
  names: () => Promise<string[]>;
}

/** An in-memory database with table t (name) and u (a deferred reference to t), recording each statement. */
function recordedDatabase(): Recorded {
  const sqlite = new BetterSqlite3(':memory:');
  sqlite.pragma('foreign_keys = ON');
  sqlite.exec('create table t (name text primary key); create table u (name text references t (name) deferrable initially deferred)');
  const statements: string[] = [];
  const database = { prepare: (text: string) => (statements.push(text), sqlite.prepare(text)), close: () => sqlite.close() };
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
  const names = async () => (await sql<{ name: string }>`select name from t order by name`.execute(db)).rows.map((row) => row.name);
  return { db, statements, names };
}

const insert = (name: string) => (trx: Kysely<DB>) => sql`insert into t (name) values (${name})`.execute(trx).then(() => name);

describe('CommitGroup', () => {
  it('commits the transactions asked for in one turn of the event loop together, each answered with its own result', async () => {
    const { db, statements, names } = recordedDatabase();
    const sut = new CommitGroup(db);
    assert.deepEqual(await Promise.all([sut.run(insert('a')), sut.run(insert('b')), sut.run(insert('c'))]), ['a', 'b', 'c']);
    assert.equal(statements.filter((text) => text === 'commit').length, 1);
    assert.deepEqual(await names(), ['a', 'b', 'c']);
    await db.destroy();
  });

  it('rolls back only the writes of a transaction that fails, which gets its own error', async () => {
    const { db, names } = recordedDatabase();
    const sut = new CommitGroup(db);
    const failing = sut.run(async (trx) => {
      await insert('x')(trx);
      throw new Error('refused');
    });
    const results = await Promise.allSettled([sut.run(insert('a')), failing, sut.run(insert('b'))]);
    assert.deepEqual(
      results.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message)),
      ['a', 'refused', 'b'],
    );
    assert.deepEqual(await names(), ['a', 'b']);
    await db.destroy();
  });

  it('answers none as committed when the shared commit fails, and keeps none of their writes', async () => {
    const { db, names } = recordedDatabase();
    const sut = new CommitGroup(db);
    // The deferred reference is checked only at commit, which it then fails.
    const dangling = sut.run((trx) => sql`insert into u (name) values ('nobody')`.execute(trx));
    const results = await Promise.allSettled([sut.run(insert('a')), dangling]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['rejected', 'rejected'],
    );
    assert.match(String((results[0] as PromiseRejectedResult).reason), /FOREIGN KEY/);
    assert.deepEqual(await names(), []);
    assert.equal(await sut.run(insert('later')), 'later', 'the next group commits as usual');
    await db.destroy();
  });

  it('splits a long queue into groups of at most its size', async () => {
    const { db, statements, names } = recordedDatabase();
    const sut = new CommitGroup(db, 2);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((name) => sut.run(insert(name))));
    assert.equal(statements.filter((text) => text === 'commit').length, 3);
    assert.deepEqual(await names(), ['a', 'b', 'c', 'd', 'e']);
    await db.destroy();
  });

  it('lets the event loop accept connections between the works of a long group, before its commit', async () => {
    // libuv accepts one connection a turn of the event loop (libuv/libuv#3696): a group run in one turn
    // kept every client that connected meanwhile waiting for as many groups as were ahead of it.
    const { db, statements } = recordedDatabase();
    const accepted: number[] = [];
    const server = createServer((socket) => (accepted.push(statements.filter((text) => text === 'commit').length), socket.destroy()));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    const clients: Socket[] = [];
    const sut = new CommitGroup(db);
    const busy = (name: string) => async (trx: Kysely<DB>) => {
      if (clients.length === 0) {
        // Connected while the group runs: the kernel queues them until the loop takes a turn.
        clients.push(...Array.from({ length: 5 }, () => connect(port, '127.0.0.1').on('error', () => undefined)));
      }
      const until = performance.now() + 5;
      while (performance.now() < until);
      return insert(name)(trx);
    };
    try {
      await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => sut.run(busy(name))));
      while (accepted.length < clients.length) {
        await new Promise((turn) => setImmediate(turn));
      }
      assert.equal(statements.filter((text) => text === 'commit').length, 1);
      assert.deepEqual(accepted, [0, 0, 0, 0, 0], 'every connection accepted while the one group ran');
    } finally {
      clients.forEach((client) => client.destroy());
      server.close();
      await db.destroy();
    }
  });

  it('starts the next group once the one running commits, with every transaction asked for meanwhile', async () => {
    const { db, statements, names } = recordedDatabase();
    const sut = new CommitGroup(db);
    const asked: Promise<string>[] = [];
    // Each of the first group's works asks for two more transactions, from a turn of its own.
    const askingTwo = (name: string) => async (trx: Kysely<DB>) => {
      await new Promise((turn) => setImmediate(turn));
      asked.push(sut.run(insert(`${name}1`)), sut.run(insert(`${name}2`)));
      return insert(name)(trx);
    };
    await Promise.all(['a', 'b', 'c'].map((name) => sut.run(askingTwo(name))));
    await Promise.all(asked);
    assert.equal(statements.filter((text) => text === 'commit').length, 2);
    assert.deepEqual(await names(), ['a', 'a1', 'a2', 'b', 'b1', 'b2', 'c', 'c1', 'c2']);
    await db.destroy();
  });

  describe('atGroupEnd', () => {
    /** A group end that records what each call was given and inserts a row naming it. */
    function recordingEnd(): { end: GroupEnd<string>; calls: string[][] } {
      const calls: string[][] = [];
      const end: GroupEnd<string> = {
        endGroup: async (trx, items) => {
          calls.push(items);
          await insert(`end:${items.join('+')}`)(trx);
        },
      };
      return { end, calls };
    }

    const handing = (name: string, end: GroupEnd<string>, fail = false) => async (trx: Kysely<DB>) => {
      await insert(name)(trx);
      await atGroupEnd(trx, end, [name]);
      if (fail) {
        throw new Error(`${name} refused`);
      }
      return name;
    };

    it("runs each end once a group, last, with the items of the group's transactions in order, less those that rolled back", async () => {
      const { db, statements, names } = recordedDatabase();
      const sut = new CommitGroup(db);
      const [first, second] = [recordingEnd(), recordingEnd()];
      const results = await Promise.allSettled([
        sut.run(handing('a', first.end)),
        sut.run(handing('b', first.end, true)),
        sut.run(handing('c', second.end)),
        sut.run(handing('d', first.end)),
      ]);
      assert.deepEqual(
        results.map((result) => result.status),
        ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.deepEqual([first.calls, second.calls], [[['a', 'd']], [['c']]]);
      assert.deepEqual(await names(), ['a', 'c', 'd', 'end:a+d', 'end:c']);
      const afterTheLastSavepoint = statements.slice(statements.lastIndexOf('release "work"'));
      assert.equal(afterTheLastSavepoint.filter((text) => text.startsWith('insert into t')).length, 2, 'the ends run after the last savepoint');
      assert.equal(statements.filter((text) => text === 'commit').length, 1);
      await db.destroy();
    });

    it('fails every transaction of the group, keeping none of their writes, when an end fails', async () => {
      const { db, names } = recordedDatabase();
      const sut = new CommitGroup(db);
      const failing: GroupEnd<string> = { endGroup: () => Promise.reject(new Error('the end failed')) };
      const results = await Promise.allSettled([sut.run(handing('a', failing)), sut.run(insert('b'))]);
      assert.deepEqual(
        results.map((result) => (result.status === 'rejected' ? (result.reason as Error).message : result.value)),
        ['the end failed', 'the end failed'],
      );
      assert.deepEqual(await names(), []);
      await db.destroy();
    });

    it('runs the end at once, with the one item, in a transaction that is not a commit group\'s', async () => {
      const { db, names } = recordedDatabase();
      const { end, calls } = recordingEnd();
      await db.transaction().execute((trx) => handing('a', end)(trx));
      assert.deepEqual(calls, [['a']]);
      assert.deepEqual(await names(), ['a', 'end:a']);
      await db.destroy();
    });
  });
});
