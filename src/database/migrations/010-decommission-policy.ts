import { type Kysely, sql } from 'kysely';
import { bytewiseText } from './schema-helpers';

/**
 * The decommission approval policy of the whole database, one row, so that every instance decides under
 * the same one: the first instance to start with DECOMMISSION_APPROVAL set writes it (none until then), and
 * `npm run db:decommission-approval` changes it. `since` is the database's time of the last change:
 * audit:verify holds every decommission from then on to the policy. A migration is history: it imports
 * nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('decommission_policy')
    .addColumn('id', 'integer', (col) => col.primaryKey().check(sql`id = 1`))
    .addColumn('policy', 'text', (col) => col.notNull().check(sql`policy in ('none', 'required')`))
    .addColumn('since', bytewiseText(db), (col) => col.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('decommission_policy').execute();
}
