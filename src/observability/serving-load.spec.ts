import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { LOAD_WINDOW_MS, ServingLoad } from './serving-load';

/** Keeps the event loop busy for `ms`, answering a request every millisecond when `answering`. */
function busyFor(load: ServingLoad, ms: number, answering: boolean): void {
  const until = performance.now() + ms;
  let nextAnswerAt = performance.now();
  while (performance.now() < until) {
    if (answering && performance.now() >= nextAnswerAt) {
      load.requestAnswered();
      nextAnswerAt += 1;
    }
  }
}

/** Lets the sampler see the window just spent: its timer fires once the loop is free. */
const sampled = () => sleep(1);

describe('ServingLoad', () => {
  let load: ServingLoad;
  afterEach(() => load.onModuleDestroy());

  it('is at capacity after a window in which the event loop was busy answering requests, and not once a window passes idle', async () => {
    load = new ServingLoad();
    busyFor(load, 2 * LOAD_WINDOW_MS, true);
    await sampled();
    assert.equal(load.atCapacity, true);
    await sleep(2 * LOAD_WINDOW_MS);
    assert.equal(load.atCapacity, false);
  });

  it('is not at capacity when the loop is busy with no request answered (the background work alone), nor when requests come to an idle loop', async () => {
    load = new ServingLoad();
    busyFor(load, 2 * LOAD_WINDOW_MS, false);
    await sampled();
    assert.equal(load.atCapacity, false);
    for (let answered = 0; answered < 20; answered++) {
      load.requestAnswered();
      await sleep(10);
    }
    assert.equal(load.atCapacity, false);
  });
});
