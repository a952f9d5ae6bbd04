import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/** Polls until `done()` holds; past `timeoutMs`, fails with `failure` (a function: the message it gives then). */
export async function waitUntil(done: () => boolean | Promise<boolean>, failure: string | (() => string), timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    assert.ok(Date.now() < deadline, typeof failure === 'string' ? failure : failure());
    await sleep(20);
  }
}

/** Polls until `value()` gives something other than undefined, and returns it; fails after `timeoutMs`. */
export async function waitFor<T>(value: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  let found: T | undefined;
  await waitUntil(async () => (found = await value()) !== undefined, `nothing came within ${timeoutMs} ms`, timeoutMs);
  return found as T;
}
