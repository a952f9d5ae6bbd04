/**
 * An async job run one run at a time. A call while a run is under way asks for one more run after it,
 * however many calls came, so no call's request is lost and none doubles the work; a run whose job
 * returns true asks for another itself (a full batch read, say). A failure ends the runs and goes to
 * `onFailure`; the next call starts afresh.
 */
export class OneRunAtATime {
  private running = false;
  private again = false;

  constructor(
    private readonly job: () => Promise<boolean | void>,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Resolves when the runs it started are over, at once when it only asked for one more. */
  async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      let more: boolean | void;
      do {
        this.again = false;
        more = await this.job();
      } while (this.again || more === true);
    } catch (error) {
      this.onFailure(error);
    } finally {
      this.running = false;
    }
  }
}
