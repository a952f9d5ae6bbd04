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

/** Polls every 100 ms until `value()` gives something other than undefined, and returns it; fails after `attempts` tries. */
export async function waitFor<T>(value: () => Promise<T | undefined>, attempts = 100): Promise<T> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const found = await value();
    if (found !== undefined) {
      return found;
    }
    await sleep(100);
  }
  assert.fail(`nothing came after ${attempts} tries`);
}

/** Polls until `done()` resolves true; past `timeoutMs`, fails with `failure`. */
export async function eventually(done: () => Promise<boolean>, failure: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    assert.ok(Date.now() < deadline, failure);
    await sleep(20);
  }
}
