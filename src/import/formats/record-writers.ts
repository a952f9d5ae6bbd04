import { stringify } from 'csv-stringify/sync';
import { KIND_DETAILS, type RecordKind } from '../record-kinds';
import { neutraliseFormula } from './spreadsheet-formulas';

/** The records of each kind, a batch at a time, in the order files carry them. */
export type RowsOfKind = (kind: RecordKind) => AsyncIterable<Record<string, unknown>[]>;

/** A record as JSON carries it: no field for what is null, exactly as the import reads an absent field. */
function present(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null));
}

/** `{ "assets": [...], "vessels": [...] }`, one record a line. */
export async function* writeJson(kinds: readonly RecordKind[], rowsOf: RowsOfKind): AsyncGenerator<string> {
  for (const [index, kind] of kinds.entries()) {
    yield `${index === 0 ? '{' : ',\n'}"${KIND_DETAILS[kind].list}": [`;
    let first = true;
    for await (const batch of rowsOf(kind)) {
      yield batch.map((row) => `${first ? ((first = false), '\n') : ',\n'}${JSON.stringify(present(row))}`).join('');
    }
    yield first ? ']' : '\n]';
  }
  yield kinds.length === 0 ? '{}\n' : '}\n';
}

/** One record a line, its kind first: `{"kind":"vessel","id":"ISD-001",...}`. */
export async function* writeNdjson(kinds: readonly RecordKind[], rowsOf: RowsOfKind): AsyncGenerator<string> {
  for (const kind of kinds) {
    for await (const batch of rowsOf(kind)) {
      yield batch.map((row) => `${JSON.stringify({ kind, ...present(row) })}\n`).join('');
    }
  }
}

/** A header row of the kind's fields, then one row a record; null is an empty cell, and no text cell opens as a formula. */
export async function* writeCsv(kind: RecordKind, rowsOf: RowsOfKind): AsyncGenerator<string> {
  const columns = [...KIND_DETAILS[kind].fields];
  yield stringify([columns]);
  for await (const batch of rowsOf(kind)) {
    yield stringify(batch, { columns, cast: { string: neutraliseFormula } });
  }
}
