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
   * The decommission: one conditional UPDATE that returns the asset, so of two racing decommissions
   * exactly one sees the row. Built with placeholders, to be compiled once (precompile). Its time is the
   * database's clock, which its audit event is dated by too.
   */
  decommissionStatement(values: DecommissionRecord & { assetId: string }) {
    return this.db
      .updateTable('assets')
      .set({
        decommission_reason: values.decommission_reason,
        decommissioned_at: databaseClock(this.db),
        authorized_by: values.authorized_by,
        status: 'decommissioned',
      })
      .where('asset_id', '=', values.assetId)
      .where('status', '=', 'active')
      .returning(DECOMMISSIONED_ASSET_COLUMNS)
      .$narrowType<{ [K in keyof DecommissionRecord | 'decommissioned_at']: NotNull }>();
  }

  /**
   * The recommission: one conditional UPDATE, so of racing recommissions exactly one sees the row
   * decommissioned. The last decommission's fields stay: the record keeps why it was once retired.
   */
  recommissionStatement(values: { assetId: string }) {
    return this.db
      .updateTable('assets')
      .set({ status: 'active' })
      .where('asset_id', '=', values.assetId)
      .where('status', '=', 'decommissioned')
      .returning(ASSET_COLUMNS);
  }

  findById(assetId: string) {
    return this.db.selectFrom('assets').select(ASSET_COLUMNS).where('asset_id', '=', assetId).executeTakeFirst();
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
