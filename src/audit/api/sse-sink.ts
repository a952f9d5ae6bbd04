import type { Response } from 'express';
import type { TokenService, TokenStanding } from '../../auth';
import { type ListedAuditEvent, shownEvent } from './audit-query.repository';
import type { StreamSink } from './audit-stream';

/** A comment line this often keeps proxies from closing an idle stream; the stream's token is checked again as often. */
export const KEEP_ALIVE_MS = 15_000;
/** What a stream may have waiting for a client that does not read; past it the client is dropped. */
const MAX_UNSENT_BYTES = 1024 * 1024;
/** How long a replay waits for the client to take what it was sent before dropping it. */
const DRAIN_TIMEOUT_MS = 10_000;
/** setTimeout's longest delay; a token that lives longer is checked again when it passes. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Why the service ended a stream, as its `event: end` frame says. */
const END_REASONS = { TOKEN_EXPIRED: 'token_expired', TOKEN_INVALID: 'token_invalid' } as const;

/**
 * What is written for each event, and for each batch, encoded once however many streams send it: the hub
 * hands every stream the same event objects, and every unfiltered stream the same batch.
 */
const frames = new WeakMap<object, string>();

function encodedOnce<T extends object>(value: T, encode: (value: T) => string): string {
  let encoded = frames.get(value);
  if (encoded === undefined) {
    encoded = encode(value);
    frames.set(value, encoded);
  }
  return encoded;
}

const frameOf = (event: ListedAuditEvent) => encodedOnce(event, () => `id: ${event.id}\nevent: audit\ndata: ${JSON.stringify(shownEvent(event))}\n\n`);

/**
 * A stream's events as Server-Sent Events frames on the response, for as long as the token that opened
 * it is accepted: at its expiry, or when a check on the keep-alive finds it refused (its key gone from
 * the configuration or the JWKS), the stream sends `event: end` with the reason and closes, and sends
 * nothing after. A client too far behind is disconnected.
 */
export class SseSink implements StreamSink {
  /** When the token stops being accepted, in ms since the epoch. */
  private until: number;
  private expiry?: NodeJS.Timeout;
  private keepAlive?: NodeJS.Timeout;

  constructor(
    private readonly res: Response,
    private readonly token: string,
    private readonly tokens: TokenService,
    standing: Extract<TokenStanding, { accepted: true }>,
  ) {
    this.until = standing.until;
    res.on('close', () => this.stopTimers());
  }

  /** Sends the headers, if nothing was sent yet, and keeps the stream alive and its token checked from now on. */
  start(): void {
    if (this.closed()) {
      return;
    }
    this.res.flushHeaders();
    this.keepAlive = setInterval(() => {
      if (!this.closed()) {
        this.res.write(': keep-alive\n\n');
        void this.checkToken();
      }
    }, KEEP_ALIVE_MS);
    this.scheduleExpiry();
  }

  closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  send(events: readonly ListedAuditEvent[]): boolean {
    if (this.closed()) {
      return false;
    }
    if (Date.now() > this.until) {
      this.endFor('TOKEN_EXPIRED');
      return false;
    }
    this.res.write(encodedOnce(events, () => events.map(frameOf).join('')));
    if (this.res.writableLength > MAX_UNSENT_BYTES) {
      this.res.destroy();
      return false;
    }
    return true;
  }

  drained(): Promise<boolean> {
    const res = this.res;
    return new Promise((resolve) => {
      if (this.closed()) {
        return resolve(false);
      }
      if (!res.writableNeedDrain) {
        return resolve(true);
      }
      const settle = (drained: boolean) => {
        clearTimeout(timer);
        res.off('drain', onDrain).off('close', onClose);
        if (!drained) {
          res.destroy();
        }
        resolve(drained);
      };
      const onDrain = () => settle(true);
      const onClose = () => settle(false);
      const timer = setTimeout(() => settle(false), DRAIN_TIMEOUT_MS);
      res.on('drain', onDrain).on('close', onClose);
    });
  }

  end(): void {
    this.stopTimers();
    this.res.end();
  }

  private stopTimers(): void {
    clearTimeout(this.expiry);
    clearInterval(this.keepAlive);
  }

  private endFor(reason: keyof typeof END_REASONS): void {
    this.stopTimers();
    if (!this.closed()) {
      this.res.end(`event: end\ndata: ${JSON.stringify({ reason: END_REASONS[reason] })}\n\n`);
    }
  }

  private scheduleExpiry(): void {
    clearTimeout(this.expiry);
    // A millisecond past `until`, when the token service refuses the token too.
    this.expiry = setTimeout(() => void this.checkToken(), Math.min(LONGEST_TIMER_MS, Math.max(0, this.until + 1 - Date.now())));
  }

  private async checkToken(): Promise<void> {
    const standing = await this.tokens.standing(this.token);
    if (!standing.accepted) {
      this.endFor(standing.reason);
    } else if (!this.closed()) {
      this.until = standing.until;
      this.scheduleExpiry();
    }
  }
}
