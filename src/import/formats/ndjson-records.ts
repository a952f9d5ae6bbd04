import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isRecordKind, RECORD_KINDS } from '../record-kinds';
import type { SourceItem } from './record-source';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one record a line, each naming its kind: `{"kind":"vessel","id":"ISD-001",...}`. Blank lines
 * are skipped; a line that is not JSON is a problem of that line, and the lines after it are still read.
 */
export async function* readNdjsonRecords(input: Readable, name: string): AsyncGenerator<SourceItem> {
  const place = (line: number) => `${name} line ${line}`;
  let lineNumber = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNumber += 1;
    if (line.trim() === '') {
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      yield { problem: `${place(lineNumber)}: not valid JSON (${(error as Error).message})` };
      continue;
    }
    if (!isObject(parsed)) {
      yield { problem: `${place(lineNumber)}: must be a JSON object` };
      continue;
    }
    const { kind, ...value } = parsed;
    if (!isRecordKind(kind)) {
      yield { problem: `${place(lineNumber)}: kind ${kind === undefined ? 'is required' : 'must be'} ${RECORD_KINDS.join(' or ')}` };
      continue;
    }
    yield { kind, value, position: lineNumber, place, fieldSeparator: ': ' };
  }
}
