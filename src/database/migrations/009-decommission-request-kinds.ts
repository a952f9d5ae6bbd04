import { type Kysely, sql } from 'kysely';

/**
 * A request of the two-person rule either decommissions its asset or recommissions it (`kind`); the
 * requests before this migration were all decommissions. The index finds an officer's pending requests,
 * which are counted against DECOMMISSION_REQUESTS_PER_OFFICER whenever the officer opens one.
 * A migration is history: it imports nothing from the live code.
 */
const KINDS = ['decommission', 'recommission'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('decommission_requests')
    .addColumn('kind', 'text', (col) =>
      col
        .notNull()
        .defaultTo('decommission')
        .check(sql`kind in (${sql.join(KINDS.map((kind) => sql.lit(kind)))})`),
    )
    .execute();
  await db.schema.createIndex('decommission_requests_requester_idx').on('decommission_requests').columns(['requested_by', 'state', 'expires_at']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('decommission_requests_requester_idx').execute();
  await db.schema.alterTable('decommission_requests').dropColumn('kind').execute();
}
