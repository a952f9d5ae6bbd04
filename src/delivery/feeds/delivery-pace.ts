import type { ServingLoad } from '../../observability';

/**
 * The sends a second an instance keeps making, across all its feeds, while it answers requests at
 * capacity: enough that no feed stands still, few enough that delivery costs the decisions a few
 * percent of the loop (a send cost 64 to 210 µs of server CPU in this stop's bench runs).
 */
export const SENDS_PER_SECOND_AT_CAPACITY = 100;

/**
 * Delivery yields to the requests: a webhook subscription must not take from the decisions the event loop
 * they need (one event per decision per subscription would otherwise cost ten subscriptions most of it).
 * While the instance answers requests at capacity (ServingLoad), its sends go out one after another at
 * SENDS_PER_SECOND_AT_CAPACITY, in the order the feeds asked; the feeds catch up, at full speed, once
 * the load falls. Otherwise a send goes at once.
 */
export class DeliveryPace {
  /** When the next send may go, while at capacity (performance.now()). */
  private nextSendAt = 0;

  constructor(private readonly load: Pick<ServingLoad, 'atCapacity'>) {}

  /** Milliseconds the caller waits before its send; reserves its place among the instance's sends. */
  waitBeforeSendMs(): number {
    if (!this.load.atCapacity) {
      return 0;
    }
    const now = performance.now();
    const sendAt = Math.max(now, this.nextSendAt);
    this.nextSendAt = sendAt + 1000 / SENDS_PER_SECOND_AT_CAPACITY;
    return sendAt - now;
  }
}
