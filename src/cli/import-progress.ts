import { count } from './command-support';

/** Plain lines (a log, a pipe) every this many records. */
const LINE_EVERY = 10_000;
/** A terminal's line is redrawn at most this often. */
const REDRAW_MS = 100;

function duration(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/**
 * Progress of an import on stderr: on a terminal one line redrawn in place, elsewhere a plain line
 * every 10,000 records. The ETA comes from the share of the file read so far.
 */
export class ImportProgress {
  private readonly started = performance.now();
  private lastDrawn = 0;
  private drawn = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly fileBytes: number,
    private readonly bytesRead: () => number,
  ) {}

  readonly report = (records: number): void => {
    const now = performance.now();
    if (this.out.isTTY) {
      if (now - this.lastDrawn >= REDRAW_MS) {
        this.out.write(`\r\x1b[K${this.describe(records, now)}`);
        this.lastDrawn = now;
        this.drawn = true;
      }
    } else if (records % LINE_EVERY === 0) {
      this.out.write(`${this.describe(records, now)}\n`);
    }
  };

  /** Clears the terminal's progress line, for the summary to take its place. */
  finish(): void {
    if (this.drawn) {
      this.out.write('\r\x1b[K');
      this.drawn = false;
    }
  }

  /** Seconds since the start. */
  elapsed(): number {
    return (performance.now() - this.started) / 1000;
  }

  private describe(records: number, now: number): string {
    const seconds = (now - this.started) / 1000;
    const share = this.fileBytes > 0 ? Math.min(this.bytesRead() / this.fileBytes, 1) : 1;
    const left = share > 0 ? (seconds * (1 - share)) / share : 0;
    return `${count(records)} records read, ${count(Math.round(records / seconds))} records/s, ${Math.floor(share * 100)}% of the file, about ${duration(left)} left`;
  }
}
