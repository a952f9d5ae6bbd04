import { createHash } from 'node:crypto';
import { Kysely, sql } from 'kysely';

/*
 * The chain's hash as it was defined when this migration was written. A migration is history: it keeps
 * its own copy, so that it links existing events the same way whatever later becomes of src/audit.
 */
const GENESIS_HASH = '0'.repeat(64);
const HASHED_FIELDS = [
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
  prev_hash: string | null;
  hash: string | null;
}

interface AuditChainHead {
  id: number;
  event_count: number;
  last_event_id: number;
  last_hash: string;
  last_occurred_at: string | null;
}

/** The tables this migration reads and writes, as they were when it was written. */
interface Schema {
  audit_events: AuditEvent;
  audit_chain_head: AuditChainHead;
}

function eventHash(event: AuditEvent): string {
  return createHash('sha256')
    .update(JSON.stringify(HASHED_FIELDS.map((field) => event[field])))
    .digest('hex');
}

const BATCH_SIZE = 1_000;

/** Adds the hash chain and links the events already recorded, in id order, so the trail verifies at once. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(migrating: Kysely<any>): Promise<void> {
  const db = migrating as Kysely<Schema>;
  await db.schema.alterTable('audit_events').addColumn('prev_hash', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('hash', 'text').execute();
  await db.schema
    .createTable('audit_chain_head')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('event_count', 'integer', (col) => col.notNull())
    .addColumn('last_event_id', 'integer', (col) => col.notNull())
    .addColumn('last_hash', 'text', (col) => col.notNull())
    .addColumn('last_occurred_at', 'text')
    .addCheckConstraint('audit_chain_head_one_row', sql`id = 1`)
    .execute();

  const head: AuditChainHead = { id: 1, event_count: 0, last_event_id: 0, last_hash: GENESIS_HASH, last_occurred_at: null };
  for (;;) {
    const events = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('id', '>', head.last_event_id)
      .orderBy('id')
      .limit(BATCH_SIZE)
      .execute();
    for (const event of events) {
      const hash = eventHash({ ...event, prev_hash: head.last_hash });
      await db.updateTable('audit_events').set({ prev_hash: head.last_hash, hash }).where('id', '=', event.id).execute();
      head.event_count++;
      head.last_event_id = event.id;
      head.last_hash = hash;
      // Events kept their recorded times; later ones must not go back before any of them.
      if (head.last_occurred_at === null || event.occurred_at > head.last_occurred_at) {
        head.last_occurred_at = event.occurred_at;
      }
    }
    if (events.length < BATCH_SIZE) {
      break;
    }
  }
  await db.insertInto('audit_chain_head').values(head).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_chain_head').execute();
  await db.schema.alterTable('audit_events').dropColumn('hash').execute();
  await db.schema.alterTable('audit_events').dropColumn('prev_hash').execute();
}
