import { Injectable } from '@nestjs/common';
import { AssetsRepository } from '../assets';
import { FleetRepository } from '../fleet';
import { type FileLayout, writeRecords } from './formats';

/** Writes the records in the formats the import reads, so that an export imports back to the same rows. */
@Injectable()
export class RecordExportService {
  constructor(
    private readonly assets: AssetsRepository,
    private readonly fleet: FleetRepository,
  ) {}

  /** The file's text, a chunk at a time; the records are read in id order, a batch at a time. */
  export(layout: FileLayout): AsyncIterable<string> {
    return writeRecords(layout, (kind) => (kind === 'asset' ? this.assets.readAll() : this.fleet.readAll()));
  }
}
