/**
 * Items gathered over one turn of the event loop and handled together when it ends (setImmediate), or
 * earlier when a reader needs them now (`flush`). Under load a turn answers many requests: work done for
 * all of them in one run costs each less CPU than the same work done amid its answer (docs/performance.md).
 */
export class EndOfTurnBatch<T> {
  private items: T[] = [];

  constructor(private readonly handle: (items: readonly T[]) => void) {}

  add(item: T): void {
    if (this.items.length === 0) {
      setImmediate(this.flush);
    }
    this.items.push(item);
  }

  /** Handles the items gathered so far, once each; nothing when there are none. */
  readonly flush = (): void => {
    if (this.items.length === 0) {
      return;
    }
    const items = this.items;
    this.items = [];
    this.handle(items);
  };
}
