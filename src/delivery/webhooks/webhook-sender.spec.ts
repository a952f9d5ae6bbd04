import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { ShownAuditEvent } from '../../audit';
import { WebhookSender } from './webhook-sender';
import { newWebhookSecret } from './webhook-secret';
import type { WebhookTarget } from './webhook-targets';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

const EVENT = { id: 41, action: 'asset.decommission', outcome: 'denied', asset_id: 'TIE-0001', occurred_at: '2026-11-28T13:00:00.123Z' } as ShownAuditEvent;

describe('WebhookSender', () => {
  let server: Server;
  let url: string;
  let received: Received[];
  let answer: (response: ServerResponse) => void;
  const secrets = [newWebhookSecret(), newWebhookSecret()];
  let target: WebhookTarget | undefined;
  const sender = (allowPrivateNetworks = true, timeoutMs = 1_000) => new WebhookSender('hook', { find: () => Promise.resolve(target) }, { allowPrivateNetworks, timeoutMs });
  const never = new AbortController().signal;

  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        answer(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?team=fleet`;
  });
  beforeEach(() => {
    received = [];
    answer = (response) => response.writeHead(204).end();
    target = { url, filter: { outcomes: ['denied'] }, secrets };
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('POSTs the event as Standard Webhooks says, signed with every secret, verifiable by a receiver', async () => {
    const sut = sender();
    assert.equal(await sut.refresh(), true);
    assert.deepEqual(await sut.send(EVENT, 1, never), { delivered: true, status: 204 });
    sut.close();
    const [{ headers, body }] = received;
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers['webhook-id'], '41');
    assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 5);
    assert.deepEqual(JSON.parse(body), { type: 'asset.decommission', timestamp: '2026-11-28T13:00:00.123Z', data: EVENT });
    const signatures = String(headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2);
    for (const [index, secret] of secrets.entries()) {
      const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`41.${String(headers['webhook-timestamp'])}.${body}`).digest('base64');
      assert.equal(signatures[index], `v1,${expected}`);
      assert.deepEqual(new Webhook(secret).verify(body, headers as Record<string, string>), JSON.parse(body));
    }
  });

  it("takes the events its subscription's filter matches, as last read", async () => {
    const sut = sender();
    await sut.refresh();
    assert.equal(sut.takes(EVENT), true);
    assert.equal(sut.takes({ ...EVENT, outcome: 'allowed' }), false);
    target = undefined;
    assert.equal(await sut.refresh(), false, 'deleted');
    assert.equal(sut.takes(EVENT), false);
  });

  it('fails on any answer but a 2xx, and follows no redirect', async () => {
    const sut = sender();
    await sut.refresh();
    answer = (response) => response.writeHead(500).end('oops');
    assert.deepEqual(await sut.send(EVENT, 1, never), { delivered: false, status: 500, error: 'HTTP 500' });
    answer = (response) => response.writeHead(302, { location: `${url}/elsewhere` }).end();
    assert.deepEqual(await sut.send(EVENT, 2, never), { delivered: false, status: 302, error: 'HTTP 302: redirects are not followed' });
    assert.equal(received.length, 2, 'the redirect was not followed');
    sut.close();
  });

  it('reads only the start of a long answer', async () => {
    const sut = sender();
    await sut.refresh();
    answer = (response) => {
      response.writeHead(200);
      const chunk = 'x'.repeat(64 * 1024);
      const more = () => {
        while (response.write(chunk));
      };
      response.on('drain', more);
      response.on('close', () => response.off('drain', more));
      more();
    };
    assert.deepEqual(await sut.send(EVENT, 1, never), { delivered: true, status: 200 });
    sut.close();
  });

  it('fails an attempt with no answer within the timeout, and stops one when told', async () => {
    const sut = sender(true, 200);
    await sut.refresh();
    answer = () => undefined;
    assert.deepEqual(await sut.send(EVENT, 1, never), { delivered: false, error: 'no answer within WEBHOOK_TIMEOUT_MS (200 ms)' });
    // A status in time is not enough: the whole answer must come within the timeout.
    answer = (response) => response.writeHead(200).write('partial');
    assert.deepEqual(await sut.send(EVENT, 1, never), { delivered: false, error: 'no answer within WEBHOOK_TIMEOUT_MS (200 ms)' });
    const stopping = new AbortController();
    setTimeout(() => stopping.abort(), 50);
    assert.deepEqual(await sut.send(EVENT, 2, stopping.signal), { delivered: false, error: 'stopped: the instance stopped delivering the feed' });
    sut.close();
  });

  it('sends one delivery after another on one kept-alive connection', async () => {
    const connections: unknown[] = [];
    const counting = (socket: unknown) => connections.push(socket);
    server.on('connection', counting);
    const sut = sender();
    await sut.refresh();
    for (let id = 1; id <= 5; id++) {
      assert.deepEqual(await sut.send({ ...EVENT, id }, 1, never), { delivered: true, status: 204 });
    }
    sut.close();
    server.off('connection', counting);
    assert.deepEqual(
      received.map(({ headers }) => headers['webhook-id']),
      ['1', '2', '3', '4', '5'],
    );
    assert.equal(connections.length, 1, 'one connection for the five');
  });

  it('refuses to connect to a forbidden address, a literal or a name, without reaching it', async () => {
    const sut = sender(false);
    await sut.refresh();
    const literal = await sut.send(EVENT, 1, never);
    assert.equal(literal.delivered, false);
    assert.match(!literal.delivered ? literal.error : '', /127\.0\.0\.1.*loopback/);
    target = { url: url.replace('127.0.0.1', 'localhost'), filter: {}, secrets };
    await sut.refresh();
    const named = await sut.send(EVENT, 2, never);
    assert.match(!named.delivered ? named.error : '', /^WEBHOOK_ADDRESS_FORBIDDEN: localhost resolves to .*loopback/);
    assert.equal(received.length, 0);
    for (const result of [literal, named]) {
      assert.doesNotMatch(JSON.stringify(result), /whsec_/);
    }
    sut.close();
  });
});
