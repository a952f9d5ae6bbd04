import { Injectable } from '@nestjs/common';
import { Kysely } from 'kysely';
import { type AssetRow, type AssetStatus, countRows, type DB, type NewAsset, type Page, selectPage, upsertRows } from '../database';

export interface DecommissionRecord {
  decommission_reason: string;
  decommissioned_at: string;
  authorized_by: string;
}

@Injectable()
export class AssetsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findById(assetId: string): Promise<AssetRow | undefined> {
    return this.db.selectFrom('assets').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
  }

  findPage(status: AssetStatus | undefined, limit: number, offset: number): Promise<Page<AssetRow>> {
    const assets = status ? this.db.selectFrom('assets').where('status', '=', status) : this.db.selectFrom('assets');
    return selectPage(assets, (query) => query.selectAll().orderBy('asset_id'), { limit, offset });
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

  count(): Promise<number> {
    return countRows(this.db, 'assets');
  }

  upsertMany(assets: NewAsset[], executor: Kysely<DB> = this.db): Promise<void> {
    return upsertRows(executor, 'assets', 'asset_id', assets);
  }
}
