import type { Kysely } from 'kysely';

/**
 * The audit listing filters by actor, action, outcome and asset_id and pages newest first by id: with
 * 001's (asset_id, id) and (outcome, id), each filter has an index that ends in id, which a page reads
 * from its start in order, at any depth, with no sort. The time index turns since and until into id
 * bounds (occurred_at never decreases along the chain). A migration is history: it imports nothing
 * from the live code.
 */
const INDEXES: Record<string, string[]> = {
  audit_events_actor_idx: ['actor', 'id'],
  audit_events_action_idx: ['action', 'id'],
  audit_events_occurred_idx: ['occurred_at', 'id'],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of Object.entries(INDEXES)) {
    await db.schema.createIndex(name).on('audit_events').columns(columns).execute();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(INDEXES)) {
    await db.schema.dropIndex(name).execute();
  }
}
