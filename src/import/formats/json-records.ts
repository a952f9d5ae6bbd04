import { TokenParser, TokenParserError, Tokenizer, TokenizerError } from '@streamparser/json';
import { KIND_DETAILS, RECORD_KINDS, type RecordKind } from '../record-kinds';
import { LineCounter, type SourceItem, UnreadableFileError } from './record-source';

const KIND_OF_LIST = new Map<unknown, RecordKind>(RECORD_KINDS.map((kind) => [KIND_DETAILS[kind].list, kind]));
const LISTS = RECORD_KINDS.map((kind) => KIND_DETAILS[kind].list).join(' and ');

const DOCUMENT = '{ "assets": [...], "vessels": [...] }';

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tokenizer names the offending byte only in its message; the message then says line and column instead. */
const CHUNK_POSITION = /at chunk position "(\d+)"/;
const POSITION_TEXT = / at chunk position "\d+" \(absolute position "\d+"\)/;

/**
 * Reads `{ "assets": [...], "vessels": [...] }` record by record: the parser hands over each record
 * as soon as it is complete and keeps none of them, so a file of any size is read in bounded memory.
 */
export async function* readJsonRecords(input: AsyncIterable<Uint8Array | string> | Iterable<string>, name: string): AsyncGenerator<SourceItem> {
  const lines = new LineCounter();
  const tokenizer = new Tokenizer();
  // `$.*.*` is each record, `$.*` each list (emptied of its records) and `$` the whole (emptied) document.
  const parser = new TokenParser({ paths: ['$', '$.*', '$.*.*'], keepStack: false });
  const found: SourceItem[] = [];
  let chunkStart = 0;
  let tokenOffset = 0;
  let failure: UnreadableFileError | undefined;
  let sawDocument = false;

  tokenizer.onToken = (token) => {
    tokenOffset = token.offset;
    parser.write(token);
  };
  tokenizer.onEnd = () => !parser.isEnded && parser.end();
  parser.onEnd = () => !tokenizer.isEnded && tokenizer.end();
  const fail = (error: Error) => {
    const position = CHUNK_POSITION.exec(error.message);
    const problem =
      error instanceof TokenizerError && position
        ? `${lines.describe(chunkStart + Number(position[1]))}: not valid JSON (${error.message.replace(POSITION_TEXT, '')})`
        : error instanceof TokenParserError
          ? `${lines.describe(tokenOffset)}: not valid JSON (${error.message})`
          : `${lines.describeEnd()}: the file ends inside the JSON document`;
    failure ??= new UnreadableFileError(`${name} ${problem}`);
  };
  tokenizer.onError = fail;
  parser.onError = fail;
  parser.onValue = ({ value, key, parent, stack }) => {
    if (stack.length === 2) {
      const kind = KIND_OF_LIST.get(stack[1].key);
      if (kind !== undefined && Array.isArray(parent)) {
        found.push({ kind, value, at: `${KIND_DETAILS[kind].list}[${String(key)}]`, fieldSeparator: '.' });
      }
    } else if (stack.length === 1 && !Array.isArray(parent)) {
      if (!KIND_OF_LIST.has(key)) {
        found.push({ problem: `${String(key)}: unknown list (expected ${LISTS})` });
      } else if (!Array.isArray(value)) {
        found.push({ problem: `${String(key)}: must be an array` });
      }
    } else if (stack.length === 0) {
      sawDocument = true;
      if (!isObject(value)) {
        found.push({ problem: `${name} must hold an object ${DOCUMENT}` });
      }
    }
  };

  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    lines.advance(bytes);
    if (!tokenizer.isEnded) {
      tokenizer.write(bytes);
    } else {
      const extra = Buffer.from(bytes).toString().search(/\S/);
      if (extra !== -1) {
        failure ??= new UnreadableFileError(`${name} ${lines.describe(chunkStart + extra)}: more after the end of the JSON document`);
      }
    }
    yield* found.splice(0);
    if (failure) {
      throw failure;
    }
    chunkStart += bytes.length;
  }
  if (!tokenizer.isEnded) {
    tokenizer.end();
  }
  yield* found.splice(0);
  if (failure) {
    throw failure;
  }
  if (!sawDocument) {
    yield { problem: `${name} is empty: it must hold an object ${DOCUMENT}` };
  }
}
