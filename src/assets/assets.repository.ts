import { Injectable } from '@nestjs/common';
import { Kysely, type NotNull } from 'kysely';
import { type AssetRow, type AssetStatus, countRows, databaseClock, type DB, readInKeyOrder, type NewAsset, selectPage, upsertRows, type UpsertCounts } from '../database';

/** What the API shows of an asset record, in the order it shows it. */
export const ASSET_COLUMNS = [
  'asset_id',
  'asset_type',
  'former_pilot',
  'status',
  'decommission_reason',
  'decommissioned_at',
  'authorized_by',
] as const;

/** The spec's decommission response, in the spec's order. */
export const DECOMMISSIONED_ASSET_COLUMNS = [
  'asset_id',
  'asset_type',
  'former_pilot',
  'decommission_reason',
  'decommissioned_at',
  'authorized_by',
] as const;

export interface DecommissionRecord {
  decommission_reason: string;
  authorized_by: string;
}

@Injectable()
export class AssetsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The decommission, inside `trx`: one conditional UPDATE that returns the asset, so of two racing
   * decommissions exactly one sees the row; undefined when the asset is absent or not active. Its time
   * is the database's clock, which its audit event is dated by too.
   */
  decommission(trx: Kysely<DB>, assetId: string, record: DecommissionRecord) {
    return trx
      .updateTable('assets')
      .set({ ...record, decommissioned_at: databaseClock(trx), status: 'decommissioned' })
      .where('asset_id', '=', assetId)
      .where('status', '=', 'active')
      .returning(DECOMMISSIONED_ASSET_COLUMNS)
      .$narrowType<{ [K in keyof DecommissionRecord | 'decommissioned_at']: NotNull }>()
      .executeTakeFirst();
  }

  /**
   * The recommission, inside `trx`: one conditional UPDATE, so of racing recommissions exactly one sees
   * the row decommissioned. The last decommission's fields stay: the record keeps why it was once retired.
   */
  recommission(trx: Kysely<DB>, assetId: string) {
    return trx.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', assetId).where('status', '=', 'decommissioned').returning(ASSET_COLUMNS).executeTakeFirst();
  }

  findById(assetId: string, executor: Kysely<DB> = this.db) {
    return executor.selectFrom('assets').select(ASSET_COLUMNS).where('asset_id', '=', assetId).executeTakeFirst();
  }

  findPage(status: AssetStatus | undefined, limit: number, offset: number) {
    const assets = status ? this.db.selectFrom('assets').where('status', '=', status) : this.db.selectFrom('assets');
    return selectPage(assets, (query) => query.select(ASSET_COLUMNS).orderBy('asset_id'), { limit, offset });
  }

  /** Every record in id order, a batch at a time, for the export. */
  readAll(): AsyncGenerator<AssetRow[]> {
    return readInKeyOrder(this.db, 'assets', 'asset_id', ASSET_COLUMNS) as AsyncGenerator<AssetRow[]>;
  }

  count(): Promise<number> {
    return countRows(this.db, 'assets');
  }

  upsertMany(assets: NewAsset[], executor: Kysely<DB> = this.db): Promise<UpsertCounts> {
    return upsertRows(executor, 'assets', 'asset_id', assets);
  }
}
