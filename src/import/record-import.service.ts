import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AssetsRepository } from '../assets';
import { describeValidationErrors } from '../common';
import { type NewAsset, TransactionRunner, type VesselRow } from '../database';
import { FleetRepository } from '../fleet';
import { ImportAssetDto, ImportVesselDto } from './dto/import-records.dto';

/** Problems listed in the message; the rest are counted, so a wholly wrong file stays readable. */
const PROBLEMS_SHOWN = 50;

export class ImportRejectedError extends Error {
  constructor(readonly problems: string[]) {
    const hidden = problems.length - PROBLEMS_SHOWN;
    super(
      `Import refused, nothing was written:\n  ${problems.slice(0, PROBLEMS_SHOWN).join('\n  ')}` +
        (hidden > 0 ? `\n  ... and ${hidden} more` : ''),
    );
  }
}

export interface ImportSummary {
  assets: number;
  vessels: number;
}

export interface ImportProgress {
  list: keyof ImportSummary;
  written: number;
  total: number;
}

/** Rows written between two progress reports. */
const PROGRESS_CHUNK = 10_000;

async function writeInChunks<Row>(
  list: keyof ImportSummary,
  rows: Row[],
  write: (chunk: Row[]) => Promise<void>,
  onProgress?: (progress: ImportProgress) => void,
): Promise<void> {
  for (let start = 0; start < rows.length; start += PROGRESS_CHUNK) {
    await write(rows.slice(start, start + PROGRESS_CHUNK));
    onProgress?.({ list, written: Math.min(start + PROGRESS_CHUNK, rows.length), total: rows.length });
  }
}

type RecordClass = new () => object;

/** Checks every record of the list, and that ids are unique within it; returns the problems found. */
function checkRecords(list: string, records: unknown, recordClass: RecordClass, idField: 'asset_id' | 'id'): string[] {
  if (records === undefined) {
    return [];
  }
  if (!Array.isArray(records)) {
    return [`${list}: must be an array`];
  }
  const firstIndexById = new Map<unknown, number>();
  return records.flatMap((record: unknown, index) => {
    const at = `${list}[${index}]`;
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      return [`${at}: must be an object`];
    }
    const errors = validateSync(plainToInstance(recordClass, record), { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
    if (errors.length > 0) {
      return [describeValidationErrors(errors, at)];
    }
    const id = (record as Record<string, unknown>)[idField];
    const first = firstIndexById.get(id);
    if (first !== undefined) {
      return [`${at}.${idField}: ${String(id)} repeats ${list}[${first}]`];
    }
    firstIndexById.set(id, index);
    return [];
  });
}

function toAssetRow(asset: ImportAssetDto): NewAsset {
  const decommissioned = asset.status === 'decommissioned';
  return {
    asset_id: asset.asset_id,
    asset_type: asset.asset_type,
    former_pilot: asset.former_pilot,
    status: asset.status ?? 'active',
    decommission_reason: decommissioned ? (asset.decommission_reason ?? null) : null,
    decommissioned_at: decommissioned && asset.decommissioned_at ? new Date(asset.decommissioned_at).toISOString() : null,
    authorized_by: decommissioned ? (asset.authorized_by ?? null) : null,
  };
}

/** Loads `{ assets, vessels }` records: all or nothing, upserting by id. Serves the import command and the demo seed. */
@Injectable()
export class RecordImportService {
  constructor(
    private readonly assets: AssetsRepository,
    private readonly fleet: FleetRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  async import(file: unknown, onProgress?: (progress: ImportProgress) => void): Promise<ImportSummary> {
    if (typeof file !== 'object' || file === null || Array.isArray(file)) {
      throw new ImportRejectedError(['the file must hold an object { "assets": [...], "vessels": [...] }']);
    }
    const { assets, vessels, ...unknown } = file as Record<string, unknown>;
    const problems = [
      ...Object.keys(unknown).map((key) => `${key}: unknown list (expected assets and vessels)`),
      ...checkRecords('assets', assets, ImportAssetDto, 'asset_id'),
      ...checkRecords('vessels', vessels, ImportVesselDto, 'id'),
    ];
    if (problems.length > 0) {
      throw new ImportRejectedError(problems);
    }
    const assetRows = ((assets ?? []) as ImportAssetDto[]).map(toAssetRow);
    const vesselRows = (vessels ?? []) as VesselRow[];
    await this.transactions.run(async (trx) => {
      await writeInChunks('assets', assetRows, (chunk) => this.assets.upsertMany(chunk, trx), onProgress);
      await writeInChunks('vessels', vesselRows, (chunk) => this.fleet.upsertMany(chunk, trx), onProgress);
    });
    return { assets: assetRows.length, vessels: vesselRows.length };
  }

  async isEmpty(): Promise<boolean> {
    const [assets, vessels] = await Promise.all([this.assets.count(), this.fleet.count()]);
    return assets === 0 && vessels === 0;
  }
}
