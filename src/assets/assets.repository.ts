import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import type { AssetRow, AssetStatus, DB, NewAsset } from '../database';

export interface DecommissionRecord {
  decommission_reason: string;
  decommissioned_at: string;
  authorized_by: string;
}

/** Rows per INSERT: well under SQLite's bound-parameter limit. */
const UPSERT_BATCH = 500;

@Injectable()
export class AssetsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findById(assetId: string): Promise<AssetRow | undefined> {
    return this.db.selectFrom('assets').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
  }

  async findPage(status: AssetStatus | undefined, limit: number, offset: number): Promise<{ rows: AssetRow[]; total: number }> {
    const query = status ? this.db.selectFrom('assets').where('status', '=', status) : this.db.selectFrom('assets');
    const [rows, { total }] = await Promise.all([
      query.selectAll().orderBy('asset_id').limit(limit).offset(offset).execute(),
      query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total) };
  }

  /** One conditional UPDATE, so of two racing decommissions exactly one sees the row. */
  decommission(assetId: string, record: DecommissionRecord, executor: Kysely<DB> = this.db): Promise<AssetRow | undefined> {
    return executor
      .updateTable('assets')
      .set({ ...record, status: 'decommissioned' })
      .where('asset_id', '=', assetId)
      .where('status', '=', 'active')
      .returningAll()
      .executeTakeFirst();
  }

  async count(): Promise<number> {
    const { total } = await this.db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(total);
  }

  async upsertMany(assets: NewAsset[], executor: Kysely<DB> = this.db): Promise<void> {
    for (let start = 0; start < assets.length; start += UPSERT_BATCH) {
      await executor
        .insertInto('assets')
        .values(assets.slice(start, start + UPSERT_BATCH))
        .onConflict((conflict) =>
          conflict.column('asset_id').doUpdateSet((eb) => ({
            asset_type: eb.ref('excluded.asset_type'),
            former_pilot: eb.ref('excluded.former_pilot'),
            status: eb.ref('excluded.status'),
            decommission_reason: eb.ref('excluded.decommission_reason'),
            decommissioned_at: eb.ref('excluded.decommissioned_at'),
            authorized_by: eb.ref('excluded.authorized_by'),
          })),
        )
        .execute();
    }
  }
}
