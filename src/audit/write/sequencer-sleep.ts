/**
 * The PostgreSQL sequencer's sleep when no event waits, which committed events end early. A wake that
 * comes while the sequencer is looking is kept, so the look that missed those events is not followed
 * by a sleep.
 */
export class SequencerSleep {
  private end?: () => void;
  private wokenSinceLook = false;

  /** Called as the sequencer looks for waiting events: what committed before, that look finds. */
  looking(): void {
    this.wokenSinceLook = false;
  }

  /** Events committed: ends the sleep under way, or spares the next one. */
  wake(): void {
    if (this.end) {
      this.end();
    } else {
      this.wokenSinceLook = true;
    }
  }

  /** Resolves after `ms`, at a wake, or when `signal` aborts, whichever comes first. */
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.wokenSinceLook || signal.aborted) {
      this.wokenSinceLook = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', end);
        this.end = undefined;
        resolve();
      };
      const timer = setTimeout(end, ms);
      signal.addEventListener('abort', end);
      this.end = end;
    });
  }
}
