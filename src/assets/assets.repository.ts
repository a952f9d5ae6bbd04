import { Injectable } from '@nestjs/common';
import { type Expression, type ExpressionBuilder, Kysely, type NotNull, type SqlBool } from 'kysely';
import { type AssetRow, type AssetStatus, CompiledStatement, countRows, databaseClock, type DB, lockInKeyOrder, readInKeyOrder, type NewAsset, selectPage, upsertRows, type UpsertCounts } from '../database';

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

/** An asset record as the API shows it, and as an If-Match names it. */
export type AssetRecord = Pick<AssetRow, (typeof ASSET_COLUMNS)[number]>;

/**
 * The row is still `expected`, every column the API shows: the condition that makes a change under
 * If-Match a compare-and-set, so a change committed since `expected` was read makes it change nothing.
 */
export const isStillRecord = (expected: AssetRecord) => (eb: ExpressionBuilder<DB, 'assets'>) =>
  eb.and(ASSET_COLUMNS.map((column) => (expected[column] === null ? eb(column, 'is', null) : eb(column, '=', expected[column]))));

/** The asset as the decommission returns it. */
export type DecommissionedAssetRow = Pick<AssetRow, (typeof DECOMMISSIONED_ASSET_COLUMNS)[number]> & { [K in keyof DecommissionRecord | 'decommissioned_at']: string };

/** What a decommission sets: the record, the database's clock, the status. */
const decommissioned = (db: Kysely<DB>, record: DecommissionRecord) => ({ ...record, decommissioned_at: databaseClock(db), status: 'decommissioned' as const });

/** Those of the assets matched that are active, decommissioned, each returned as the decommission answers it. */
const decommissionWhere = (db: Kysely<DB>, record: DecommissionRecord, matched: (eb: ExpressionBuilder<DB, 'assets'>) => Expression<SqlBool>) =>
  db
    .updateTable('assets')
    .set(decommissioned(db, record))
    .where(matched)
    .where('status', '=', 'active')
    .returning(DECOMMISSIONED_ASSET_COLUMNS)
    .$narrowType<{ [K in keyof DecommissionRecord | 'decommissioned_at']: NotNull }>();

@Injectable()
export class AssetsRepository {
  /** Every decommission runs it, so its SQL is built once (CompiledStatement in the database module says why). */
  private readonly decommissionStatement: CompiledStatement<DecommissionedAsset, DecommissionedAssetRow>;

  constructor(private readonly db: Kysely<DB>) {
    this.decommissionStatement = new CompiledStatement(db, ['asset_id', 'decommission_reason', 'authorized_by'], (db, { asset_id, ...record }: DecommissionedAsset) =>
      decommissionWhere(db, record, (eb) => eb('asset_id', '=', asset_id)),
    );
  }

  /**
   * The decommission, inside `trx`: one conditional UPDATE that returns the asset, so of two racing
   * decommissions exactly one sees the row; undefined when the asset is absent or not active. Its time
   * is the database's clock, which its audit event is dated by too. With `expected` (an If-Match's
   * record), only while the row is still that record.
   */
  async decommission(trx: Kysely<DB>, assetId: string, record: DecommissionRecord, expected?: AssetRecord): Promise<DecommissionedAssetRow | undefined> {
    const { decommission_reason, authorized_by } = record;
    if (expected) {
      return decommissionWhere(trx, { decommission_reason, authorized_by }, (eb) => eb.and([eb('asset_id', '=', assetId), isStillRecord(expected)(eb)])).executeTakeFirst();
    }
    const [asset] = await this.decommissionStatement.run(trx, { asset_id: assetId, decommission_reason, authorized_by });
    return asset;
  }

  /**
   * The decommission of those of `assetIds` that are active, inside `trx`, in one conditional UPDATE that
   * returns each asset it changed (in no particular order). On PostgreSQL their rows are locked first in
   * asset_id order (lockInKeyOrder), so batches that share assets, and DELETEs, cannot deadlock.
   */
  async decommissionAll(trx: Kysely<DB>, assetIds: readonly string[], record: DecommissionRecord): Promise<DecommissionedAssetRow[]> {
    await lockInKeyOrder(trx, 'assets', 'asset_id', assetIds);
    return decommissionWhere(trx, record, (eb) => eb('asset_id', 'in', assetIds)).execute();
  }

  /**
   * The recommission, inside `trx`: one conditional UPDATE, so of racing recommissions exactly one sees
   * the row decommissioned. The last decommission's fields stay: the record keeps why it was once retired.
   * With `expected` (an If-Match's record), only while the row is still that record.
   */
  recommission(trx: Kysely<DB>, assetId: string, expected?: AssetRecord) {
    const update = trx.updateTable('assets').set({ status: 'active' }).where('asset_id', '=', assetId).where('status', '=', 'decommissioned');
    return (expected ? update.where(isStillRecord(expected)) : update).returning(ASSET_COLUMNS).executeTakeFirst();
  }

  /** The status of each of `assetIds` that has a record. */
  async statusesOf(executor: Kysely<DB>, assetIds: string[]): Promise<Map<string, AssetStatus>> {
    const rows = await executor.selectFrom('assets').select(['asset_id', 'status']).where('asset_id', 'in', assetIds).execute();
    return new Map(rows.map((row) => [row.asset_id, row.status]));
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
