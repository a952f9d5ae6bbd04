import { TokenParser, TokenParserError, Tokenizer, TokenizerError, TokenType } from '@streamparser/json';
import { KIND_DETAILS, RECORD_KINDS, type RecordKind } from '../record-kinds';
import { LineCounter, MAX_RECORD_BYTES, MAX_RECORD_DEPTH, nestedTooDeep, type SourceItem, UnreadableFileError } from './record-source';

const KIND_OF_LIST = new Map<unknown, RecordKind>(RECORD_KINDS.map((kind) => [KIND_DETAILS[kind].list, kind]));
const PLACE_IN_LIST = Object.fromEntries(RECORD_KINDS.map((kind) => [kind, (index: number) => `${KIND_DETAILS[kind].list}[${index}]`])) as Record<
  RecordKind,
  (index: number) => string
>;
const LISTS = RECORD_KINDS.map((kind) => KIND_DETAILS[kind].list).join(' and ');

const DOCUMENT = '{ "assets": [...], "vessels": [...] }';

/** The depth of a record's own braces. */
const RECORD_DEPTH = 3;

/** The tokenizer names the offending byte only in its message; the message then says line and column instead. */
const CHUNK_POSITION = /at chunk position "(\d+)"/;
const POSITION_TEXT = / at chunk position "\d+" \(absolute position "\d+"\)/;

/**
 * Follows the document's outline token by token, for what the parser is not asked to hand over: that
 * the document is an object, and what each of its keys holds. Records are left to the parser.
 */
class Outline {
  /** How many objects and arrays are open: 1 in the document, 2 in a list, 3 and more in a record. */
  depth = 0;
  private keyNext = false;
  private valueNext = false;
  private key = '';
  started = false;

  constructor(
    private readonly name: string,
    private readonly report: (problem: string) => void,
  ) {}

  follow(type: TokenType, value: unknown): void {
    if (!this.started) {
      this.started = true;
      if (type !== TokenType.LEFT_BRACE) {
        this.report(`${this.name} must hold an object ${DOCUMENT}`);
      }
    }
    if (this.depth === 1) {
      if (this.valueNext) {
        this.valueNext = false;
        if (!KIND_OF_LIST.has(this.key)) {
          this.report(`${this.key}: unknown list (expected ${LISTS})`);
        } else if (type !== TokenType.LEFT_BRACKET) {
          this.report(`${this.key}: must be an array`);
        }
      } else if (type === TokenType.STRING && this.keyNext) {
        this.key = String(value);
        this.keyNext = false;
      } else if (type === TokenType.COLON) {
        this.valueNext = true;
      } else if (type === TokenType.COMMA) {
        this.keyNext = true;
      }
    }
    if (type === TokenType.LEFT_BRACE || type === TokenType.LEFT_BRACKET) {
      this.depth += 1;
      this.keyNext = this.depth === 1 && type === TokenType.LEFT_BRACE;
    } else if (type === TokenType.RIGHT_BRACE || type === TokenType.RIGHT_BRACKET) {
      this.depth -= 1;
    }
  }
}

/**
 * Reads `{ "assets": [...], "vessels": [...] }` record by record: the parser hands over each record
 * as soon as it is complete and keeps none of them (only records are asked for: a parser asked for
 * a list or the document would keep everything in it), so a file of any size is read in bounded memory.
 */
export async function* readJsonRecords(input: AsyncIterable<Uint8Array | string> | Iterable<string>, name: string): AsyncGenerator<SourceItem> {
  const lines = new LineCounter();
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$.*.*'], keepStack: false });
  const found: SourceItem[] = [];
  const outline = new Outline(name, (problem) => found.push({ problem }));
  let chunkStart = 0;
  let tokenOffset = 0;
  let failure: UnreadableFileError | undefined;

  /** Where the record being read began, and that place in words (read while its chunk is the current one). */
  let recordStart: { offset: number; place: string } | undefined;
  tokenizer.onToken = (token) => {
    if (failure) {
      return;
    }
    tokenOffset = token.offset;
    outline.follow(token.token, token.value);
    if (outline.depth === RECORD_DEPTH && (token.token === TokenType.LEFT_BRACE || token.token === TokenType.LEFT_BRACKET)) {
      recordStart = { offset: token.offset, place: lines.describe(token.offset) };
    } else if (outline.depth < RECORD_DEPTH) {
      recordStart = undefined;
    }
    if (outline.depth > RECORD_DEPTH + MAX_RECORD_DEPTH) {
      failure = nestedTooDeep(`${name} ${lines.describe(token.offset)}`);
      return;
    }
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
    const kind = KIND_OF_LIST.get(stack[1]?.key);
    if (kind !== undefined && Array.isArray(parent)) {
      found.push({ kind, value, position: key as number, place: PLACE_IN_LIST[kind], fieldSeparator: '.' });
    }
  };

  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    lines.advance(bytes);
    if (recordStart !== undefined && chunkStart + bytes.length - recordStart.offset > MAX_RECORD_BYTES) {
      failure ??= new UnreadableFileError(`${name} ${recordStart.place}: a record longer than ${MAX_RECORD_BYTES} bytes; nothing was imported`);
    } else if (!tokenizer.isEnded) {
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
  if (!outline.started) {
    yield { problem: `${name} is empty: it must hold an object ${DOCUMENT}` };
  }
}
