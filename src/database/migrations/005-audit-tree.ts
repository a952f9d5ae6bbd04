import { createHash } from 'node:crypto';
import { Kysely, sql } from 'kysely';

/*
 * The Merkle tree's hashes as they were defined when this migration was written. A migration is
 * history: it keeps its own copy, so that it builds the tree the same way whatever becomes of src/audit.
 */
const LEAF_FIELDS = [
  'id',
  'occurred_at',
  'action',
  'outcome',
  'reason',
  'actor',
  'actor_clearance',
  'asset_id',
  'request_id',
  'ip',
  'method',
  'path',
  'prev_hash',
] as const;

interface AuditEvent {
  id: number;
  occurred_at: string;
  action: string;
  outcome: string;
  reason: string | null;
  actor: string | null;
  actor_clearance: number | null;
  asset_id: string | null;
  request_id: string;
  ip: string | null;
  method: string;
  path: string;
  prev_hash: string;
  leaf_hash: string | null;
  leaf_index: number | null;
}

/** The tables this migration reads and writes, as they were when it was written. */
interface Schema {
  audit_events: AuditEvent;
  audit_chain_head: { id: number; frontier: string };
  audit_tree_nodes: { level: number; node_index: number; hash: string };
}

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** RFC 9162 leaf hash of the JSON array of the fields, then `details`, null in every event recorded before it existed. */
function leafHash(event: AuditEvent): string {
  const leaf = JSON.stringify([...LEAF_FIELDS.map((field) => event[field]), null]);
  return sha256(Buffer.from([0]), Buffer.from(leaf)).toString('base64');
}

function nodeHash(left: string, right: string): string {
  return sha256(Buffer.from([1]), Buffer.from(left, 'base64'), Buffer.from(right, 'base64')).toString('base64');
}

const BATCH_SIZE = 1_000;

/**
 * Adds the decision's details to events, each event's leaf hash, the tree's complete subtrees, its
 * right edge (frontier) beside the chain head, and the latest signed checkpoint; builds the tree of the
 * events already recorded, in id order.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(migrating: Kysely<any>): Promise<void> {
  const db = migrating as Kysely<Schema>;
  await db.schema.alterTable('audit_events').addColumn('details', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('leaf_hash', 'text').execute();
  // The event's position in the tree: its id less the gaps that events recorded before the chain may have left.
  await db.schema.alterTable('audit_events').addColumn('leaf_index', 'integer').execute();
  await db.schema.alterTable('audit_pending').addColumn('details', 'text').execute();
  await db.schema.alterTable('audit_chain_head').addColumn('frontier', 'text', (col) => col.notNull().defaultTo('')).execute();
  await db.schema
    .createTable('audit_tree_nodes')
    .addColumn('level', 'integer', (col) => col.notNull())
    .addColumn('node_index', 'integer', (col) => col.notNull())
    .addColumn('hash', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('audit_tree_nodes_pkey', ['level', 'node_index'])
    .execute();
  await db.schema
    .createTable('audit_checkpoint')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('tree_size', 'integer', (col) => col.notNull())
    .addColumn('verifier_key', 'text', (col) => col.notNull())
    .addColumn('note', 'text', (col) => col.notNull())
    .addCheckConstraint('audit_checkpoint_one_row', sql`id = 1`)
    .execute();

  const frontier: string[] = [];
  let size = 0;
  for (;;) {
    const events = await db.selectFrom('audit_events').selectAll().where('id', '>', size).orderBy('id').limit(BATCH_SIZE).execute();
    const nodes: Schema['audit_tree_nodes'][] = [];
    for (const event of events) {
      let hash = leafHash(event);
      await db.updateTable('audit_events').set({ leaf_hash: hash, leaf_index: size }).where('id', '=', event.id).execute();
      for (let level = 0; (size >> level) & 1; level++) {
        hash = nodeHash(frontier.pop() as string, hash);
        nodes.push({ level: level + 1, node_index: size >> (level + 1), hash });
      }
      frontier.push(hash);
      size++;
    }
    if (nodes.length > 0) {
      await db.insertInto('audit_tree_nodes').values(nodes).execute();
    }
    if (events.length < BATCH_SIZE) {
      break;
    }
  }
  await db.updateTable('audit_chain_head').set({ frontier: frontier.join(',') }).where('id', '=', 1).execute();
  await db.schema.createIndex('audit_events_leaf_index').on('audit_events').column('leaf_index').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_leaf_index').execute();
  await db.schema.dropTable('audit_checkpoint').execute();
  await db.schema.dropTable('audit_tree_nodes').execute();
  await db.schema.alterTable('audit_chain_head').dropColumn('frontier').execute();
  await db.schema.alterTable('audit_pending').dropColumn('details').execute();
  await db.schema.alterTable('audit_events').dropColumn('leaf_index').execute();
  await db.schema.alterTable('audit_events').dropColumn('leaf_hash').execute();
  await db.schema.alterTable('audit_events').dropColumn('details').execute();
}
