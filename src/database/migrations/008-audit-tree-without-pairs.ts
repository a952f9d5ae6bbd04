import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

/** The tables this migration reads and writes, as they were when it was written. */
interface Schema {
  audit_events: { leaf_index: number; leaf_hash: string };
  audit_tree_nodes: { level: number; node_index: number; hash: string };
}

/**
 * The tree no longer stores its subtrees of two leaves (level 1): a proof reads the two leaves instead.
 * Those that earlier appends stored would never be read again; this drops them, half the table's rows.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await (db as Kysely<Schema>).deleteFrom('audit_tree_nodes').where('level', '=', 1).execute();
}

/** RFC 9162 node hash as it was defined when this migration was written (a migration keeps its own copy). */
const pairHash = (left: string, right: string) =>
  createHash('sha256')
    .update(Buffer.concat([Buffer.from([1]), Buffer.from(left, 'base64'), Buffer.from(right, 'base64')]))
    .digest('base64');

const BATCH_SIZE = 1_000;

/** Code before this migration reads the pairs: they are hashed again from the leaves the events hold. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(migrating: Kysely<any>): Promise<void> {
  const db = migrating as Kysely<Schema>;
  for (let from = 0; ; from += BATCH_SIZE) {
    const leaves = await db
      .selectFrom('audit_events')
      .select(['leaf_index', 'leaf_hash'])
      .where('leaf_index', '>=', from)
      .orderBy('leaf_index')
      .limit(BATCH_SIZE)
      .execute();
    const pairs = [];
    for (let at = 0; at + 1 < leaves.length; at += 2) {
      pairs.push({ level: 1, node_index: leaves[at].leaf_index / 2, hash: pairHash(leaves[at].leaf_hash, leaves[at + 1].leaf_hash) });
    }
    if (pairs.length > 0) {
      await db.insertInto('audit_tree_nodes').values(pairs).execute();
    }
    if (leaves.length < BATCH_SIZE) {
      return;
    }
  }
}
