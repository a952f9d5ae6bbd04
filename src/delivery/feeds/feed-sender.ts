import type { ShownAuditEvent } from '../../audit';

/** What one attempt to deliver one event came to: only `delivered` moves the feed's cursor past it. */
export type AttemptResult =
  | { delivered: true; status?: number }
  /** status: the receiver's HTTP status, when it gave one; error: what went wrong, in a line, never a secret. */
  | { delivered: false; status?: number; error: string };

/**
 * Where one feed's events go: a webhook's url (webhooks/), the syslog receiver (syslog/). The feed runner
 * (feeds/) calls `refresh` before each batch of events, passes over the events the feed does not `take`,
 * and calls `send` for one event at a time, in chain order, retrying it until it is delivered.
 */
export interface FeedSender {
  /**
   * Whether WEBHOOK_MAX_ATTEMPTS failed attempts at one event turn the feed failing, stopped until resumed:
   * a webhook subscription, which its API resumes. The syslog feed has no API to resume it, so it never
   * turns failing: it retries at the capped delay until its receiver is back.
   */
  readonly turnsFailing: boolean;
  /**
   * Reads again what may have changed since the last batch (a webhook's url, filter, rotated secret);
   * false once the feed is gone (its subscription deleted). Rejects only when that could not be read.
   */
  refresh(): Promise<boolean>;
  /** Whether the feed takes this event; the runner moves the cursor past the others without sending them. */
  takes(event: ShownAuditEvent): boolean;
  /** Sends one event; resolves with the attempt's result (it never rejects). `signal` aborts it on shutdown or a lost lease. */
  send(event: ShownAuditEvent, attempt: number, signal: AbortSignal): Promise<AttemptResult>;
  /** Releases what the sender holds (a connection); called when the instance stops delivering the feed. */
  close(): void;
}
