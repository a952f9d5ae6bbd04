import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One POST as the receiver got it. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The path it was posted to: a test that subscribes several times to one receiver tells them apart by it. */
  path: string;
  /** webhook-id, as a number: the event's id. */
  eventId: number;
}

/** What the receiver answers a delivery: a status, or `hang` (no answer until it closes). */
export type Answer = number | 'hang';

/**
 * A webhook receiver on 127.0.0.1, as a test runs it: it keeps every request in arrival order and
 * answers each with the next of `answers` (a status, or `hang`), then 204 once they are used up.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  readonly answers: Answer[] = [];
  private readonly hanging: ServerResponse[] = [];
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), path: request.url ?? '', eventId: Number(request.headers['webhook-id']) });
      const answer = this.answers.shift() ?? 204;
      if (answer === 'hang') {
        this.hanging.push(response);
      } else {
        response.writeHead(answer).end();
      }
    });
  });

  private constructor() {}

  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(port, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/fleet`;
  }

  /** Event ids in the order they first arrived: a retry or a delivery sent again after a crash counts once. */
  firstArrivals(): number[] {
    return [...new Set(this.received.map((delivery) => delivery.eventId))];
  }

  async close(): Promise<void> {
    this.hanging.forEach((response) => response.destroy());
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/**
 * Checks a delivery as a receiver would, twice: with standardwebhooks (another implementation of the
 * spec than the service's) and by recomputing the HMAC by hand; returns the body it verified.
 */
export function verifiedBody(delivery: ReceivedDelivery, secret: string): unknown {
  const { headers, body } = delivery;
  const verified = new Webhook(secret).verify(body, headers as Record<string, string>);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`).digest('base64')}`;
  if (!String(headers['webhook-signature']).split(' ').includes(expected)) {
    throw new Error(`no signature of event ${delivery.eventId} is ${expected}`);
  }
  return verified;
}
