import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** What the environment of a delivery test sets: plain http to 127.0.0.1, and quick retries and leases. */
export const DELIVERY_TEST_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_LEASE_MS: '1200',
  WEBHOOK_MAX_ATTEMPTS: '4',
};

/** Lets an app subscribe a webhook to the sink below, on this machine. */
export const SINK_TEST_ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

/** A target for subscriptions whose deliveries a test does not read. */
export interface WebhookSink {
  /** An https:// URL on the sink, ending in `path`. */
  url: (path: string) => string;
  close: () => Promise<void>;
}

/**
 * A port on this machine that closes every connection it takes: each delivery attempt to it fails at
 * once, and nothing leaves the machine (an app that subscribes to it needs SINK_TEST_ENV).
 */
export async function startWebhookSink(): Promise<WebhookSink> {
  const server = createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: async () => {
      server.close();
      await once(server, 'close');
    },
  };
}

export interface Subscription {
  id: string;
  secret: string;
  /** The last event before delivery starts. */
  cursor: number;
}

/** A subscription as GET /v1/webhooks/{id} shows it. */
export interface ShownSubscription {
  id: string;
  state: 'active' | 'failing';
  cursor: number;
  attempts: number;
  last_error: string | null;
}

/** One attempt as GET /v1/webhooks/{id}/deliveries shows it. */
export interface ShownAttempt {
  event_id: number;
  attempt: number;
  status: number | null;
  error: string | null;
}

/** The subscriptions' API of one server, called with a clearance-9 token. */
export class WebhooksApi {
  constructor(
    private readonly baseUrl: string,
    private readonly authorization: string,
  ) {}

  /** A subscription from now on. */
  async subscribe(url: string, filter?: object): Promise<Subscription> {
    const { id, secret, cursor } = (await this.call('POST', '/v1/webhooks', 201, { url, filter })) as Subscription;
    return { id, secret, cursor };
  }

  async find(id: string): Promise<ShownSubscription> {
    return (await this.call('GET', `/v1/webhooks/${id}`, 200)) as ShownSubscription;
  }

  async resume(id: string): Promise<void> {
    await this.call('POST', `/v1/webhooks/${id}/resume`, 200);
  }

  /** The new secret. */
  async rotateSecret(id: string): Promise<string> {
    return ((await this.call('POST', `/v1/webhooks/${id}/rotate-secret`, 200)) as { secret: string }).secret;
  }

  async unsubscribe(id: string): Promise<void> {
    await this.call('DELETE', `/v1/webhooks/${id}`, 200);
  }

  /** The newest 100 attempts, oldest first. */
  async attempts(id: string): Promise<ShownAttempt[]> {
    const { deliveries } = (await this.call('GET', `/v1/webhooks/${id}/deliveries?limit=100`, 200)) as { deliveries: ShownAttempt[] };
    return deliveries.reverse();
  }

  private async call(method: string, path: string, status: number, body?: object): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { Authorization: this.authorization, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    assert.equal(response.status, status, `${method} ${path}: ${text}`);
    return (JSON.parse(text) as { data: unknown }).data;
  }
}
