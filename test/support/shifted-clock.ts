import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

/** Debian's libfaketime (package faketime): preloaded into a process, it shifts the wall clock the process reads. */
const LIBFAKETIME = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

/**
 * What to add to a process's environment to run it with its wall clock `offset` away from the machine's
 * (libfaketime's syntax: `+1d`, `-90s`). Its monotonic clock, which paces timers, is left alone.
 */
export function shiftedClock(offset: string): Record<string, string> {
  assert.ok(
    existsSync(LIBFAKETIME),
    `libfaketime is missing at ${LIBFAKETIME}: this test shifts a server's clock with it. Install Debian's package: apt-get install -y faketime (.ci/run does)`,
  );
  return { LD_PRELOAD: LIBFAKETIME, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
}
