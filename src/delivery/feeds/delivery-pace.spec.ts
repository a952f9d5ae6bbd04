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
    const waits = [1, 2, 3, 4].map(() => pace.waitBeforeSendMs());
    assert.equal(waits[0], 0);
    // Asked within a few microseconds of each other, so each wait is its place times the gap, less that.
    waits.forEach((waitMs, place) => assert.ok(Math.abs(waitMs - place * GAP_MS) < 1, `send ${place}: waits ${waitMs} ms`));
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
