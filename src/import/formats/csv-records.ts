import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { KIND_DETAILS, type RecordKind } from '../record-kinds';
import { type SourceItem, UnreadableFileError } from './record-source';
import { restoreFormula } from './spreadsheet-formulas';

const WHOLE_NUMBER = /^-?[0-9]+$/;

/**
 * Reads records of one kind, one a row, under a header row of field names. An empty cell is an
 * absent field; an integer field's cell becomes a number when it is a whole number (otherwise it
 * stays text, for the record check to refuse). The quote the export puts before a formula is taken off.
 */
export async function* readCsvRecords(input: Readable, name: string, kind: RecordKind): AsyncGenerator<SourceItem> {
  const { fields, integerFields } = KIND_DETAILS[kind];
  const rows = input.pipe(parse({ bom: true, info: true, skip_empty_lines: true, relax_column_count: true }));
  const place = (line: number) => `${name} line ${line}`;
  let header: string[] | undefined;
  try {
    for await (const { record, info } of rows as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (header === undefined) {
        header = record;
        const unknown = header.filter((column) => !(fields as readonly string[]).includes(column));
        const repeated = header.filter((column, index) => header?.indexOf(column) !== index);
        if (unknown.length > 0 || repeated.length > 0) {
          throw new UnreadableFileError(
            `${place(info.lines)}: the header ${[
              ...unknown.map((column) => `names an unknown field "${column}"`),
              ...repeated.map((column) => `repeats "${column}"`),
            ].join(', ')} (the ${kind} fields are ${fields.join(', ')})`,
          );
        }
        continue;
      }
      if (record.length !== header.length) {
        yield { problem: `${place(info.lines)}: has ${record.length} cells where the header has ${header.length}` };
        continue;
      }
      const value: Record<string, unknown> = {};
      header.forEach((column, index) => {
        const cell = restoreFormula(record[index]);
        if (cell !== '') {
          value[column] = integerFields.includes(column) && WHOLE_NUMBER.test(cell) ? Number(cell) : cell;
        }
      });
      yield { kind, value, position: info.lines, place, fieldSeparator: ': ' };
    }
  } catch (error) {
    throw error instanceof CsvError ? new UnreadableFileError(`${name}: not valid CSV (${error.message})`) : error;
  }
  if (header === undefined) {
    yield { problem: `${name}: no header row (the ${kind} fields are ${fields.join(', ')})` };
  }
}
