import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveryPace, SENDS_PER_SECOND_AT_CAPACITY } from './delivery-pace';

const GAP_MS = 1000 / SENDS_PER_SECOND_AT_CAPACITY;

describe('DeliveryPace', () => {
  it('lets every send go at once while the instance is not at capacity', () => {
    const pace = new DeliveryPace({ atCapacity: false });
    assert.deepEqual([1, 2, 3, 4].map(() => pace.waitBeforeSendMs()), [0, 0, 0, 0]);
  });

  it('at capacity, gives the sends asked for together consecutive places one gap apart, whichever feed asks', () => {
    const pace = new DeliveryPace({ atCapacity: true });
    const started = performance.now();
    const waits = [1, 2, 3, 4].map(() => pace.waitBeforeSendMs());
    const askingMs = performance.now() - started;
    assert.equal(waits[0], 0);
    // Each wait is its place times the gap, less the time since the first was asked.
    waits.forEach((waitMs, place) => assert.ok(waitMs <= place * GAP_MS && waitMs >= place * GAP_MS - askingMs, `send ${place}: waits ${waitMs} ms`));
  });

  it('sends at once again as soon as the load falls, and a send at capacity after a quiet while waits for no one', async () => {
    const load = { atCapacity: true };
    const pace = new DeliveryPace(load);
    pace.waitBeforeSendMs();
    pace.waitBeforeSendMs();
    load.atCapacity = false;
    assert.equal(pace.waitBeforeSendMs(), 0);
    await new Promise((resolve) => setTimeout(resolve, 2 * GAP_MS + 5));
    load.atCapacity = true;
    assert.equal(pace.waitBeforeSendMs(), 0);
  });
});
