import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { ShownAuditEvent } from '../../audit';
import type { DeliveryConfig } from '../../config';
import type { AttemptResult, FeedSender } from '../feeds/feed-sender';
import { assertAllowedHost, guardedLookup } from './target-guard';
import { webhookSecretBytes } from './webhook-secret';
import { matchesFilter, type WebhookTarget, WebhookTargets } from './webhook-targets';

/** Bytes of a receiver's answer read at most: what it says past a status is not used, and a huge answer must not cost memory. */
const ANSWER_BYTES_READ = 4_096;

/** What a delivery carries, as Standard Webhooks 1.0 puts it: the event's action and time, and the event as the listing shows it. */
export function deliveryBody(event: ShownAuditEvent): string {
  return JSON.stringify({ type: event.action, timestamp: event.occurred_at, data: event });
}

/** `webhook-signature`: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for each secret, space-separated. */
export function webhookSignature(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', webhookSecretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`).join(' ');
}

/** An error as one line of delivery_attempts: its code and message, never a secret (none is in a url, headers are not quoted). */
function oneLine(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const text = message.replace(/\s+/g, ' ').trim();
  return code !== undefined && !text.includes(code) ? `${code}: ${text}` : text;
}

/** An attempt that had no whole answer within WEBHOOK_TIMEOUT_MS. */
class NoAnswerInTimeError extends Error {}

/**
 * A webhook subscription's deliveries: one signed POST per attempt (Standard Webhooks 1.0), through a
 * keep-alive connection of its own. Every new connection is checked against the address rules (a name
 * by guardedLookup, an IP literal before the request), redirects are not followed (a 3xx fails), and the
 * attempt, answer included, has WEBHOOK_TIMEOUT_MS. The target is read again before each batch and each
 * retry, so a rotated secret signs from the next delivery on.
 */
export class WebhookSender implements FeedSender {
  readonly turnsFailing = true;
  private target?: WebhookTarget;
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly feedId: string,
    private readonly targets: Pick<WebhookTargets, 'find'>,
    private readonly config: Pick<DeliveryConfig, 'timeoutMs' | 'allowPrivateNetworks'>,
  ) {}

  async refresh(): Promise<boolean> {
    this.target = await this.targets.find(this.feedId);
    return this.target !== undefined;
  }

  takes(event: ShownAuditEvent): boolean {
    return this.target !== undefined && matchesFilter(this.target.filter, event);
  }

  async send(event: ShownAuditEvent, _attempt: number, signal: AbortSignal): Promise<AttemptResult> {
    const target = this.target;
    if (target === undefined) {
      return { delivered: false, error: 'the subscription was not read' };
    }
    try {
      const url = new URL(target.url);
      assertAllowedHost(url.hostname, this.config.allowPrivateNetworks);
      const status = await this.post(url, event, target.secrets, signal);
      if (status >= 200 && status < 300) {
        return { delivered: true, status };
      }
      return { delivered: false, status, error: status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}` };
    } catch (error) {
      if (error instanceof NoAnswerInTimeError) {
        return { delivered: false, error: `no answer within WEBHOOK_TIMEOUT_MS (${this.config.timeoutMs} ms)` };
      }
      return { delivered: false, error: signal.aborted ? 'stopped: the instance stopped delivering the feed' : oneLine(error) };
    }
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /**
   * One POST; resolves with the status once the answer is read (up to ANSWER_BYTES_READ, the rest
   * discarded with the connection); fails with NoAnswerInTimeError past WEBHOOK_TIMEOUT_MS. One timer,
   * not AbortSignal.timeout() combined with the stop's signal: those two cost about 40 µs a send.
   */
  private post(url: URL, event: ShownAuditEvent, secrets: readonly string[], signal: AbortSignal): Promise<number> {
    const body = deliveryBody(event);
    const id = String(event.id);
    const timestamp = Math.floor(Date.now() / 1000);
    const https = url.protocol === 'https:';
    const options = {
      method: 'POST',
      signal,
      agent: https ? this.httpsAgent : this.httpAgent,
      lookup: guardedLookup(this.config.allowPrivateNetworks),
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'fleet-registry-webhooks',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(secrets, id, timestamp, body),
      },
    };
    return new Promise<number>((resolve, reject) => {
      const failed = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      const answered = (response: IncomingMessage) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_BYTES_READ) {
            response.destroy();
          }
        });
        response.on('error', failed);
        response.on('close', () => {
          clearTimeout(timer);
          resolve(response.statusCode ?? 0);
        });
      };
      const outgoing = https ? httpsRequest(url, options, answered) : httpRequest(url, options, answered);
      const timer = setTimeout(() => outgoing.destroy(new NoAnswerInTimeError()), this.config.timeoutMs);
      outgoing.on('error', failed);
      outgoing.end(body);
    });
  }
}
