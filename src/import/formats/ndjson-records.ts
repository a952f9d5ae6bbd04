import type { Readable } from 'node:stream';
import { isRecordKind, RECORD_KINDS } from '../record-kinds';
import { MAX_RECORD_BYTES, MAX_RECORD_DEPTH, nestedTooDeep, type SourceItem, UnreadableFileError } from './record-source';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const NEWLINE = 0x0a;

/**
 * The file's lines without their line ends. A line is refused once it passes MAX_RECORD_BYTES, before
 * more of it is read, so one long line cannot fill the memory.
 */
async function* boundedLines(input: Readable, name: string): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 1;
  const tooLong = () => new UnreadableFileError(`${name} line ${lineNumber}: a record longer than ${MAX_RECORD_BYTES} bytes; nothing was imported`);
  const line = () => Buffer.concat(pending).toString('utf8').replace(/\r$/, '');
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE)) {
      pending.push(bytes.subarray(0, end));
      if (pendingBytes + end > MAX_RECORD_BYTES) {
        throw tooLong();
      }
      yield line();
      [pending, pendingBytes, bytes] = [[], 0, bytes.subarray(end + 1)];
      lineNumber += 1;
    }
    pending.push(bytes);
    pendingBytes += bytes.length;
    if (pendingBytes > MAX_RECORD_BYTES) {
      throw tooLong();
    }
  }
  if (pendingBytes > 0) {
    yield line();
  }
}

/**
 * Where in the line an object or array opens past the record's own braces and MAX_RECORD_DEPTH levels
 * within them, or undefined: counted before JSON.parse, since what is done with a parsed value that
 * deep (validation, copies) recurses and would exhaust the stack. Brackets inside strings do not count.
 */
function indexPastDepthLimit(line: string): number | undefined {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (inString) {
      if (char === '\\') {
        index++;
      } else if (char === '"') {
        inString = false;
      }
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      depth++;
      if (depth > 1 + MAX_RECORD_DEPTH) {
        return index;
      }
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return undefined;
}

/**
 * Reads one record a line, each naming its kind: `{"kind":"vessel","id":"ISD-001",...}`. Blank lines
 * are skipped; a line that is not JSON is a problem of that line, and the lines after it are still read;
 * a record nested too deep makes the file unreadable, as in a JSON file.
 */
export async function* readNdjsonRecords(input: Readable, name: string): AsyncGenerator<SourceItem> {
  const place = (line: number) => `${name} line ${line}`;
  let lineNumber = 0;
  for await (const line of boundedLines(input, name)) {
    lineNumber += 1;
    if (line.trim() === '') {
      continue;
    }
    const tooDeepAt = indexPastDepthLimit(line);
    if (tooDeepAt !== undefined) {
      // As in a JSON file: the column counts bytes, and the file is refused whole.
      throw nestedTooDeep(`${place(lineNumber)}, column ${Buffer.byteLength(line.slice(0, tooDeepAt)) + 1}`);
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
