import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Kysely } from 'kysely';
import { AssetsRepository } from '../assets';
import { describeValidationErrors } from '../common';
import { type DB, type NewAsset, TransactionRunner, type UpsertCounts, type VesselRow } from '../database';
import { FleetRepository } from '../fleet';
import type { ImportAssetDto } from './dto/import-records.dto';
import { readJsonRecords } from './formats/json-records';
import { type SourceItem, type SourceRecord, UnreadableFileError } from './formats/record-source';
import { KIND_DETAILS, RECORD_KINDS, type RecordKind, type RecordList } from './record-kinds';

/** Problems listed in the message; the rest are counted, so a wholly wrong file stays readable. */
const PROBLEMS_SHOWN = 50;

export class ImportRejectedError extends Error {
  constructor(
    /** The first PROBLEMS_SHOWN problems. */
    readonly problems: string[],
    readonly problemCount: number,
    recordsRead: number,
  ) {
    const hidden = problemCount - problems.length;
    super(
      `Import refused, nothing was written: ${problemCount} ${problemCount === 1 ? 'problem' : 'problems'} ` +
        `in ${recordsRead} records read\n  ${problems.join('\n  ')}` +
        (hidden > 0 ? `\n  ... and ${hidden} more` : ''),
    );
  }
}

export type ImportSummary = { recordsRead: number } & Record<RecordList, UpsertCounts>;

/** Records validated and held before they are written in one statement, and between two progress reports. */
const BATCH = 1_000;

function toAssetRow(asset: ImportAssetDto): NewAsset {
  const decommissioned = asset.status === 'decommissioned';
  return {
    asset_id: asset.asset_id,
    asset_type: asset.asset_type,
    former_pilot: asset.former_pilot,
    status: asset.status ?? 'active',
    decommission_reason: decommissioned ? asset.decommission_reason : null,
    decommissioned_at: decommissioned ? new Date(asset.decommissioned_at as string).toISOString() : null,
    authorized_by: decommissioned ? asset.authorized_by : null,
    // No decommission event vouches for it: audit:verify exempts the rows an import marks.
    imported_decommissioned: decommissioned ? 1 : 0,
  };
}

/** Keeps the first problems and counts them all. */
class Problems {
  readonly shown: string[] = [];
  count = 0;

  add(problem: string): void {
    this.count += 1;
    if (this.shown.length < PROBLEMS_SHOWN) {
      this.shown.push(problem);
    }
  }
}

/**
 * Loads records from any reader: all or nothing, upserting by id. Records are checked and written
 * in batches inside one transaction; after the first problem nothing more is written, the rest of
 * the file is still checked so that the refusal lists its problems, and the transaction rolls back.
 * Serves the import command and the demo seed.
 */
@Injectable()
export class RecordImportService {
  constructor(
    private readonly assets: AssetsRepository,
    private readonly fleet: FleetRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Imports a `{ assets, vessels }` document already in memory, through the JSON reader a file goes through. */
  import(document: unknown, onProgress?: (recordsRead: number) => void): Promise<ImportSummary> {
    return this.importRecords(readJsonRecords([JSON.stringify(document) ?? ''], 'the document'), onProgress);
  }

  /** `onProgress` hears how many records have been read, every BATCH records. */
  importRecords(items: AsyncIterable<SourceItem>, onProgress?: (recordsRead: number) => void): Promise<ImportSummary> {
    return this.transactions.run(async (trx) => {
      const problems = new Problems();
      const summary: ImportSummary = { recordsRead: 0, assets: { inserted: 0, updated: 0 }, vessels: { inserted: 0, updated: 0 } };
      const pending = { asset: [] as object[], vessel: [] as object[] };
      const firstPositionById = { asset: new Map<unknown, number>(), vessel: new Map<unknown, number>() };
      const flush = async (kind: RecordKind) => {
        const rows = pending[kind].splice(0);
        if (problems.count === 0 && rows.length > 0) {
          const counts = await this.write(kind, rows, trx);
          summary[KIND_DETAILS[kind].list].inserted += counts.inserted;
          summary[KIND_DETAILS[kind].list].updated += counts.updated;
        }
      };
      try {
        for await (const item of items) {
          if ('problem' in item) {
            problems.add(item.problem);
            continue;
          }
          summary.recordsRead += 1;
          if (summary.recordsRead % BATCH === 0) {
            onProgress?.(summary.recordsRead);
          }
          const problem = checkRecord(item, firstPositionById[item.kind]);
          if (problem !== undefined) {
            problems.add(problem);
          } else if (problems.count === 0) {
            pending[item.kind].push(item.value as object);
            if (pending[item.kind].length >= BATCH) {
              await flush(item.kind);
            }
          }
        }
      } catch (error) {
        if (!(error instanceof UnreadableFileError)) {
          throw error;
        }
        problems.add(error.message);
      }
      for (const kind of RECORD_KINDS) {
        await flush(kind);
      }
      if (problems.count > 0) {
        throw new ImportRejectedError(problems.shown, problems.count, summary.recordsRead);
      }
      return summary;
    });
  }

  private write(kind: RecordKind, records: object[], trx: Kysely<DB>): Promise<UpsertCounts> {
    return kind === 'asset'
      ? this.assets.upsertMany((records as ImportAssetDto[]).map(toAssetRow), trx)
      : this.fleet.upsertMany(records as VesselRow[], trx);
  }

  async isEmpty(): Promise<boolean> {
    const [assets, vessels] = await Promise.all([this.assets.count(), this.fleet.count()]);
    return assets === 0 && vessels === 0;
  }
}

/**
 * The record's problem, or undefined. A valid record's id is remembered with its position (a number,
 * not its place's name: a million of them must stay small) to find repeats.
 */
function checkRecord(record: SourceRecord, firstPositionById: Map<unknown, number>): string | undefined {
  const { kind, value, position, place, fieldSeparator } = record;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${place(position)}: must be an object`;
  }
  const { dto, idField } = KIND_DETAILS[kind];
  const errors = validateSync(plainToInstance(dto, value), { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  if (errors.length > 0) {
    return `${place(position)}${fieldSeparator}${describeValidationErrors(errors)}`;
  }
  const id = (value as Record<string, unknown>)[idField];
  const first = firstPositionById.get(id);
  if (first !== undefined) {
    return `${place(position)}${fieldSeparator}${idField} ${String(id)} repeats ${place(first)}`;
  }
  firstPositionById.set(id, position);
  return undefined;
}
