import 'reflect-metadata';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { Client } from 'pg';
import type { PostgresTimeouts } from '../config';
import { createDatabase } from './create-database';
import { isDatabaseUnavailable } from './database-errors';
import type { DB } from './database.types';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const TIMEOUTS: PostgresTimeouts = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };

function postgres(timeouts: Partial<PostgresTimeouts>, url = DATABASE_URL as string, poolSize = 1): Kysely<DB> {
  return createDatabase({ dialect: 'postgres', url, poolSize, timeouts: { ...TIMEOUTS, ...timeouts } });
}

/** Resolves to the error the work failed with, and how long it took. */
async function failure(work: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await work();
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  assert.fail('expected the work to fail');
}


describe('the PostgreSQL pool under failures', { skip: !DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  it('cancels a statement past DATABASE_STATEMENT_TIMEOUT_MS with an error that means unavailable', async () => {
    const db = postgres({ statementMs: 200 });
    try {
      const { error, ms } = await failure(() => sql`select pg_sleep(2)`.execute(db));
      assert.equal((error as { code?: string }).code, '57014');
      assert.ok(isDatabaseUnavailable(error));
      assert.ok(ms < 1_500, `cancelled after ${ms} ms`);
      await sql`select 1`.execute(db);
    } finally {
      await db.destroy();
    }
  });

  it('gives up waiting for an answer after DATABASE_QUERY_TIMEOUT_MS and serves the next query on a fresh connection', async () => {
    const db = postgres({ queryMs: 300 });
    try {
      const { error, ms } = await failure(() => sql`select pg_sleep(3)`.execute(db));
      assert.match((error as Error).message, /Query read timeout/);
      assert.ok(isDatabaseUnavailable(error));
      assert.ok(ms < 1_500, `gave up after ${ms} ms`);
      const started = performance.now();
      await sql`select 1`.execute(db);
      assert.ok(performance.now() - started < 1_000, 'the one pool slot was not left behind the unanswered query');
    } finally {
      await db.destroy();
    }
  });

  it('survives its connection being killed while checked out in a transaction, and heals', async () => {
    const db = postgres({});
    const admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    try {
      const { error } = await failure(() =>
        db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
          await sleep(200);
          await sql`select 1`.execute(trx);
        }),
      );
      assert.ok(isDatabaseUnavailable(error), String(error));
      await sql`select 1`.execute(db);
    } finally {
      await admin.end();
      await db.destroy();
    }
  });

  it('ends a transaction left idle longer than the statement timeout, releasing its locks', async () => {
    const db = postgres({ statementMs: 300 });
    try {
      const { error } = await failure(() =>
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          await sleep(800);
          await sql`select 1`.execute(trx);
        }),
      );
      assert.ok(isDatabaseUnavailable(error), String(error));
      await sql`select 1`.execute(db);
    } finally {
      await db.destroy();
    }
  });

  describe('a server that accepts connections and never answers', () => {
    let silent: ReturnType<typeof createServer>;
    const sockets = new Set<Socket>();
    let url: string;
    before(async () => {
      silent = createServer((socket) => sockets.add(socket)).listen(0, '127.0.0.1');
      await once(silent, 'listening');
      url = `postgres://postgres@127.0.0.1:${(silent.address() as { port: number }).port}/test`;
    });
    after(() => {
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    });

    it('fails a query within DATABASE_CONNECT_TIMEOUT_MS with an error that means unavailable', async () => {
      const db = postgres({ connectMs: 300 }, url);
      try {
        const { error, ms } = await failure(() => sql`select 1`.execute(db));
        assert.ok(isDatabaseUnavailable(error), String(error));
        assert.ok(ms < 1_500, `failed after ${ms} ms`);
      } finally {
        await db.destroy();
      }
    });
  });
});
