import type { RecordKind } from '../record-kinds';

/** One record as a reader found it, with where it was found, for messages. */
export interface SourceRecord {
  kind: RecordKind;
  value: unknown;
  /** The record's index in its JSON list, or its line in a line-based file. */
  position: number;
  /** Names a position: "vessels[3]" in a JSON file, "fleet.csv line 5" in a line-based one. */
  place: (position: number) => string;
  /** What joins the place and a field: "vessels[3].crew", "fleet.csv line 5: crew". */
  fieldSeparator: '.' | ': ';
}

/** A problem with the file's layout that does not stop the reading (an unknown list, a line that is not JSON). */
export interface SourceProblem {
  problem: string;
}

export type SourceItem = SourceRecord | SourceProblem;

/** A record longer than this is refused before more of it is read, so one record cannot fill the memory. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** The file cannot be read on from here: a JSON syntax error, a CSV row that breaks the CSV rules. */
export class UnreadableFileError extends Error {}

/** Records are flat objects: one holding objects or arrays deeper than this is refused, not parsed. */
export const MAX_RECORD_DEPTH = 8;

/** The refusal of a record nested past MAX_RECORD_DEPTH, at `where` ("deep.json line 2, column 9"), whatever the format. */
export function nestedTooDeep(where: string): UnreadableFileError {
  return new UnreadableFileError(`${where}: a record nested deeper than ${MAX_RECORD_DEPTH} levels; nothing was imported`);
}

/** The line (from 1) and column (from 1, in bytes) of a byte offset, for files read chunk by chunk. */
export class LineCounter {
  private line = 1;
  private lineStart = 0;
  private chunkStart = 0;
  private chunk: Uint8Array = new Uint8Array();

  /** Call with each chunk before it is parsed. */
  advance(chunk: Uint8Array): void {
    this.countLines(this.chunk.length);
    this.chunkStart += this.chunk.length;
    this.chunk = chunk;
  }

  /** "line 3, column 14" of an offset in the current chunk (an earlier offset reads as the chunk's start). */
  describe(offset: number): string {
    const within = Math.min(Math.max(offset - this.chunkStart, 0), this.chunk.length);
    const { line, lineStart } = this.countIn(within);
    return `line ${line}, column ${this.chunkStart + within - lineStart + 1}`;
  }

  /** Where the whole input ends. */
  describeEnd(): string {
    return this.describe(this.chunkStart + this.chunk.length);
  }

  private countLines(upTo: number): void {
    ({ line: this.line, lineStart: this.lineStart } = this.countIn(upTo));
  }

  private countIn(upTo: number): { line: number; lineStart: number } {
    let { line, lineStart } = this;
    for (let index = this.chunk.indexOf(0x0a); index !== -1 && index < upTo; index = this.chunk.indexOf(0x0a, index + 1)) {
      line += 1;
      lineStart = this.chunkStart + index + 1;
    }
    return { line, lineStart };
  }
}
