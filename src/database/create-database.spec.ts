import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDatabase, describeLocation } from './create-database';

const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };

describe('describeLocation', () => {
  it('names the SQLite file', () => {
    assert.equal(describeLocation({ dialect: 'sqlite', path: '/srv/registry.sqlite' }), '/srv/registry.sqlite');
  });

  it('never shows a PostgreSQL password', () => {
    const shown = describeLocation({ dialect: 'postgres', url: 'postgres://fleet:hunter2@db:5432/registry', poolSize: 5, timeouts: TIMEOUTS });
    assert.equal(shown, 'postgres://fleet:***@db:5432/registry');
  });
});

describe('the SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-sqlite-'));
  const db = createDatabase({ dialect: 'sqlite', path: join(dir, 'registry.sqlite') });
  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is written ahead (WAL) and synced on every commit, so an answered decommission survives a power loss', async () => {
    const { rows: journal } = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    const { rows: synchronous } = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
    assert.equal(journal[0].journal_mode, 'wal');
    assert.equal(synchronous[0].synchronous, 2, 'FULL');
  });
});
