import { ASSET_COLUMNS } from '../assets';
import { VESSEL_COLUMNS } from '../fleet';
import { ImportAssetDto, ImportVesselDto } from './dto/import-records.dto';

export const RECORD_KINDS = ['asset', 'vessel'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export const isRecordKind = (value: unknown): value is RecordKind => RECORD_KINDS.includes(value as RecordKind);

/**
 * What every format needs to know of a kind of record: its list in a JSON file, its fields in the
 * order files carry them, the field that identifies it, and the fields that are integers (CSV cells
 * are text).
 */
export const KIND_DETAILS = {
  asset: { list: 'assets', fields: ASSET_COLUMNS, idField: 'asset_id', integerFields: [] as readonly string[], dto: ImportAssetDto as new () => object },
  vessel: { list: 'vessels', fields: VESSEL_COLUMNS, idField: 'id', integerFields: ['crew'] as readonly string[], dto: ImportVesselDto as new () => object },
} as const;

export type RecordList = (typeof KIND_DETAILS)[RecordKind]['list'];
