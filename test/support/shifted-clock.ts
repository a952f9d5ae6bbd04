import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';

/** Debian's libfaketime (package faketime): preloaded into a process, it shifts the wall clock the process reads. */
const LIBFAKETIME = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

export interface ShiftedClock {
  /** What to add to a process's environment to run it on this clock. */
  env: Record<string, string>;
  /** Moves the clock of every process running on it, within a second (libfaketime's syntax: `+1d`, `-90s`, `+0`). */
  shift: (offset: string) => void;
}

/**
 * A wall clock `offset` away from the machine's, for the processes started with its `env`: libfaketime
 * reads the offset from `file`, again every second. Their monotonic clock, which paces timers, is left alone.
 */
export function shiftedClock(file: string, offset: string): ShiftedClock {
  assert.ok(
    existsSync(LIBFAKETIME),
    `libfaketime is missing at ${LIBFAKETIME}: this test shifts a server's clock with it. Install Debian's package: apt-get install -y faketime (.ci/run does)`,
  );
  const shift = (to: string) => writeFileSync(file, `${to}\n`);
  shift(offset);
  return {
    env: { LD_PRELOAD: LIBFAKETIME, FAKETIME_TIMESTAMP_FILE: file, FAKETIME_CACHE_DURATION: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1' },
    shift,
  };
}
