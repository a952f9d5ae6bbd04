import { Injectable } from '@nestjs/common';
import { Kysely, type NotNull } from 'kysely';
import { type AssetRow, type AssetStatus, CompiledStatement, countRows, databaseClock, type DB, readInKeyOrder, type NewAsset, selectPage, upsertRows, type UpsertCounts } from '../database';

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

type DecommissionedAsset = DecommissionRecord & { asset_id: string };

/** The asset as the decommission returns it. */
export type DecommissionedAssetRow = Pick<AssetRow, (typeof DECOMMISSIONED_ASSET_COLUMNS)[number]> & { [K in keyof DecommissionRecord | 'decommissioned_at']: string };

@Injectable()
export class AssetsRepository {
  /** Every decommission runs it, so its SQL is built once (CompiledStatement in the database module says why). */
  private readonly decommissionStatement: CompiledStatement<DecommissionedAsset, DecommissionedAssetRow>;

  constructor(private readonly db: Kysely<DB>) {
    this.decommissionStatement = new CompiledStatement(db, ['asset_id', 'decommission_reason', 'authorized_by'], (db, { asset_id, ...record }: DecommissionedAsset) =>
      db
        .updateTable('assets')
        .set({ ...record, decommissioned_at: databaseClock(db), status: 'decommissioned' })
        .where('asset_id', '=', asset_id)
        .where('status', '=', 'active')
        .returning(DECOMMISSIONED_ASSET_COLUMNS)
        .$narrowType<{ [K in keyof DecommissionRecord | 'decommissioned_at']: NotNull }>(),
    );
  }

  /**
   * The decommission, inside `trx`: one conditional UPDATE that returns the asset, so of two racing
   * decommissions exactly one sees the row; undefined when the asset is absent or not active. Its time
   * is the database's clock, which its audit event is dated by too.
   */
  async decommission(trx: Kysely<DB>, assetId: string, { decommission_reason, authorized_by }: DecommissionRecord): Promise<DecommissionedAssetRow | undefined> {
    const [asset] = await this.decommissionStatement.run(trx, { asset_id: assetId, decommission_reason, authorized_by });
    return asset;
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
