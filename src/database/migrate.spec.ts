import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { Client } from 'pg';
import { createDatabase } from './create-database';
import type { DB } from './database.types';
import { assertMigrated, migrateToLatest } from './migrate';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const TIMEOUTS = { statementMs: 5_000, queryMs: 6_000, connectMs: 3_000, idleMs: 10_000, keepAliveDelayMs: 10_000 };

describe('migrations on a PostgreSQL database that other services share', { skip: !DATABASE_URL && 'needs TEST_DATABASE_URL' }, () => {
  const schema = `migrate_spec_${randomBytes(6).toString('hex')}`;
  let admin: Client;
  let db: Kysely<DB>;

  before(async () => {
    admin = new Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(DATABASE_URL as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    db = createDatabase({ dialect: 'postgres', url: url.toString(), poolSize: 2, timeouts: TIMEOUTS });
  });
  after(async () => {
    await db?.destroy();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it('migrates and checks its own schema while other schemas with tables are created and dropped', async () => {
    // Reading every schema's tables, as Kysely's introspector does, fails on a schema dropped mid-read.
    let churning = true;
    const churn = (async () => {
      for (let round = 0; churning; round++) {
        const other = `${schema}_other_${round}`;
        await admin.query(`CREATE SCHEMA ${other}; CREATE TABLE ${other}.t (id serial primary key, a text, b text, c text)`);
        await admin.query(`DROP SCHEMA ${other} CASCADE`);
      }
    })();
    try {
      assert.deepEqual(await migrateToLatest(db), ['001-initial', '002-audit-chain', '003-vessel-counts', '004-audit-pending', '005-audit-tree', '006-audit-query-indexes', '007-decommission-requests', '008-audit-tree-without-pairs', '009-decommission-request-kinds', '010-decommission-policy', '011-imported-decommissions', '012-delivery-feeds', '013-idempotency-keys', '014-audit-cosignatures', '015-decommission-request-assets', '016-idempotency-keys-answers-only', '017-audit-asset-ids-bytewise']);
      for (let check = 0; check < 100; check++) {
        await assertMigrated(db);
      }
      assert.deepEqual(await migrateToLatest(db), []);
    } finally {
      churning = false;
      await churn;
    }
  });

  it('describes only the tables of its own schema, with their columns', async () => {
    await migrateToLatest(db);
    const tables = await db.introspection.getTables();
    assert.ok(tables.length > 0);
    assert.deepEqual(tables.filter((table) => table.schema !== schema), []);
    const events = tables.find((table) => table.name === 'audit_events');
    assert.ok(events?.columns.some((column) => column.name === 'hash' && column.dataType === 'text'));
  });
});
