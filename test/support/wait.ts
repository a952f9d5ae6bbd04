import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `done()` holds; past `timeoutMs`, fails with the message `failure()` gives then. */
export async function waitUntil(done: () => boolean, failure: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    assert.ok(Date.now() < deadline, failure());
    await sleep(20);
  }
}

/** Polls until `done()` resolves true; past `timeoutMs`, fails with `failure`. */
export async function eventually(done: () => Promise<boolean>, failure: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    assert.ok(Date.now() < deadline, failure);
    await sleep(20);
  }
}
