import { strongEntityTag } from '../http';
import { ASSET_COLUMNS, type AssetRecord } from './assets.repository';

/**
 * The asset record's entity tag: a digest of every field the API shows of it, in their order, so any
 * change of the record (a decommission, a recommission, an import) changes it, on every instance alike.
 */
export function assetEntityTag(asset: AssetRecord): string {
  return strongEntityTag(ASSET_COLUMNS.map((column) => asset[column]));
}
