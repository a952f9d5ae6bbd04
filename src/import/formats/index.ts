import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { RECORD_KINDS, type RecordKind } from '../record-kinds';
import { readCsvRecords } from './csv-records';
import { readJsonRecords } from './json-records';
import { readNdjsonRecords } from './ndjson-records';
import type { SourceItem } from './record-source';
import { type RowsOfKind, writeCsv, writeJson, writeNdjson } from './record-writers';

export const FORMATS = ['json', 'ndjson', 'csv'] as const;
export type RecordFormat = (typeof FORMATS)[number];

const FORMAT_OF_EXTENSION: Record<string, RecordFormat> = { '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.csv': 'csv' };

/** The format a file name says (.json, .ndjson or .jsonl, .csv), or undefined. */
export function formatOfFileName(file: string): RecordFormat | undefined {
  return FORMAT_OF_EXTENSION[extname(file).toLowerCase()];
}

/** What a file holds: CSV holds one kind of record, JSON and NDJSON every kind. */
export type FileLayout = { format: 'json' | 'ndjson' } | { format: 'csv'; kind: RecordKind };

export function readRecords(input: Readable, name: string, layout: FileLayout): AsyncIterable<SourceItem> {
  switch (layout.format) {
    case 'json':
      return readJsonRecords(input, name);
    case 'ndjson':
      return readNdjsonRecords(input, name);
    case 'csv':
      return readCsvRecords(input, name, layout.kind);
  }
}

export function writeRecords(layout: FileLayout, rowsOf: RowsOfKind): AsyncIterable<string> {
  switch (layout.format) {
    case 'json':
      return writeJson(RECORD_KINDS, rowsOf);
    case 'ndjson':
      return writeNdjson(RECORD_KINDS, rowsOf);
    case 'csv':
      return writeCsv(layout.kind, rowsOf);
  }
}
