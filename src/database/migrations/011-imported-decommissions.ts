import type { Kysely } from 'kysely';

/**
 * Marks the asset rows an import wrote as decommissioned: they have no decommission event, and
 * audit:verify reports any other decommissioned row without one. Rows already decommissioned with no
 * decommission event in the trail can only have come from an import, so they are marked here. A
 * migration is history: it imports nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('assets').addColumn('imported_decommissioned', 'integer', (col) => col.notNull().defaultTo(0)).execute();
  await db
    .updateTable('assets')
    .set({ imported_decommissioned: 1 })
    .where('status', '=', 'decommissioned')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('audit_events')
            .select('audit_events.id')
            .whereRef('audit_events.asset_id', '=', 'assets.asset_id')
            .where('audit_events.action', '=', 'asset.decommission')
            .where('audit_events.outcome', '=', 'allowed'),
        ),
      ),
    )
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('assets').dropColumn('imported_decommissioned').execute();
}
