import type { Kysely } from 'kysely';

/**
 * Witness cosignatures (C2SP tlog-cosignature). Each checkpoint the service sent to its witnesses is
 * kept by its tree size, the note as the log signed it; each witness's cosignature of it is kept beside,
 * its signature line and its time (POSIX seconds), one row a witness (by its verifier key) and size: a
 * later cosignature of the same checkpoint replaces the older one. A migration is history: it imports
 * nothing from the live code.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_witnessed_checkpoints')
    .addColumn('tree_size', 'integer', (col) => col.primaryKey())
    .addColumn('note', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('audit_cosignatures')
    .addColumn('tree_size', 'integer', (col) => col.notNull())
    .addColumn('witness_key', 'text', (col) => col.notNull())
    .addColumn('signature', 'text', (col) => col.notNull())
    .addColumn('cosigned_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('audit_cosignatures_pk', ['tree_size', 'witness_key'])
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migration signature
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_cosignatures').execute();
  await db.schema.dropTable('audit_witnessed_checkpoints').execute();
}
