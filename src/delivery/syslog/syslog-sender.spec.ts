import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SyslogReceiver } from '../../../test/support/syslog-receiver';
import { TestCertificateAuthority } from '../../../test/support/tls-certificates';
import { waitUntil } from '../../../test/support/wait';
import type { ShownAuditEvent } from '../../audit';
import type { SyslogTarget } from '../../config';
import { oneLine, SyslogSender } from './syslog-sender';

const TIMEOUT_MS = 2_000;
const ORIGIN = { hostname: 'registry-1', procId: '4242' };

function event(id: number, outcome: 'allowed' | 'denied', actor = `officer-${id}`): ShownAuditEvent {
  return {
    id,
    occurred_at: `2026-11-21T10:15:${String(id % 60).padStart(2, '0')}.000Z`,
    action: 'asset.decommission',
    outcome,
    reason: outcome === 'denied' ? 'CLEARANCE_INSUFFICIENT' : null,
    actor,
    actor_clearance: 9,
    asset_id: `TIE-${id}`,
    request_id: `request-${id}`,
    ip: '127.0.0.1',
    method: 'DELETE',
    path: `/v1/assets/TIE-${id}`,
    prev_hash: '0'.repeat(64),
    details: null,
    hash: '1'.repeat(64),
    leaf_hash: `leaf-${id}=`,
  };
}

const live = (): AbortSignal => new AbortController().signal;
const tcp = (receiver: { port: number }): SyslogTarget => ({ protocol: 'tcp', host: '127.0.0.1', port: receiver.port });

describe('SyslogSender over TCP', () => {
  let receiver: SyslogReceiver;
  before(async () => {
    receiver = await SyslogReceiver.start();
  });
  after(() => receiver.stop());

  it('writes each event as one RFC 5424 message on one connection: header, SD-ID and params, severity by outcome', async () => {
    const sender = new SyslogSender(tcp(receiver), TIMEOUT_MS, ORIGIN);
    const events = [event(1, 'allowed'), event(2, 'denied', 'quote " bracket ] backslash \\ newline \n Ærø'), event(3, 'allowed')];
    for (const shown of events) {
      assert.deepEqual(await sender.send(shown, 1, live()), { delivered: true });
    }
    const messages = await receiver.waitForMessages(3);
    sender.close();
    assert.deepEqual(receiver.errors, []);
    assert.equal(receiver.connections, 1);
    assert.deepEqual(
      messages.map((message) => ({ ...message, structuredData: message.structuredData.map((element) => ({ ...element, params: Object.fromEntries(element.params) })) })),
      events.map((shown) => ({
        facility: 13,
        severity: shown.outcome === 'denied' ? 4 : 5,
        version: 1,
        timestamp: shown.occurred_at,
        hostname: 'registry-1',
        appName: 'fleet-registry',
        procId: '4242',
        msgId: 'asset.decommission',
        structuredData: [
          {
            id: 'audit@32473',
            params: { id: String(shown.id), outcome: shown.outcome, actor: shown.actor, asset_id: shown.asset_id, ...(shown.reason === null ? {} : { reason: shown.reason }), leaf_hash: shown.leaf_hash },
          },
        ],
        msg: messages[shown.id - 1].msg,
        msgHasBom: shown.id === 2,
      })),
    );
    assert.equal(messages[0].msg, 'asset.decommission allowed by officer-1 on asset TIE-1');
  });

  it('opens a new connection on the send after the receiver closed the one it had', async () => {
    receiver.messages.length = 0;
    const connectionsBefore = receiver.connections;
    const sender = new SyslogSender(tcp(receiver), TIMEOUT_MS, ORIGIN);
    assert.deepEqual(await sender.send(event(1, 'allowed'), 1, live()), { delivered: true });
    await receiver.waitForMessages(1);
    // Not waiting for the close to arrive: the sender sees it before it writes.
    const dropped = receiver.dropConnections();
    assert.deepEqual(await sender.send(event(2, 'denied'), 1, live()), { delivered: true });
    assert.deepEqual(await sender.send(event(3, 'allowed'), 1, live()), { delivered: true });
    await dropped;
    const messages = await receiver.waitForMessages(3);
    sender.close();
    assert.deepEqual(
      messages.map((message) => message.structuredData[0].params[0]),
      [['id', '1'], ['id', '2'], ['id', '3']],
    );
    assert.equal(receiver.connections - connectionsBefore, 2);
  });

  it('answers not delivered, in one line, while the receiver refuses connections, and delivers once it listens again', async () => {
    receiver.messages.length = 0;
    const sender = new SyslogSender(tcp(receiver), TIMEOUT_MS, ORIGIN);
    await receiver.stop();
    const refused = await sender.send(event(1, 'denied'), 1, live());
    assert.equal(refused.delivered, false);
    assert.match(!refused.delivered ? refused.error : '', /^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    await receiver.listen();
    assert.deepEqual(await sender.send(event(1, 'denied'), 2, live()), { delivered: true });
    await receiver.waitForMessages(1);
    sender.close();
  });

  it('answers aborted for a send whose signal is aborted, and never rejects', async () => {
    const sender = new SyslogSender(tcp(receiver), TIMEOUT_MS, ORIGIN);
    const controller = new AbortController();
    controller.abort();
    assert.deepEqual(await sender.send(event(1, 'allowed'), 1, controller.signal), { delivered: false, error: 'aborted' });
    sender.close();
  });

  it('close() ends its connection', async () => {
    const sender = new SyslogSender(tcp(receiver), TIMEOUT_MS, ORIGIN);
    await sender.send(event(1, 'allowed'), 1, live());
    await waitUntil(() => receiver.openConnections() === 1, 'the sender never connected');
    sender.close();
    await waitUntil(() => receiver.openConnections() === 0, 'the connection stayed open after close()');
  });
});

describe('SyslogSender over TLS', () => {
  const authority = TestCertificateAuthority.create();
  let receiver: SyslogReceiver;
  before(async () => {
    receiver = await SyslogReceiver.start({ tls: authority.issue('IP:127.0.0.1') });
  });
  after(() => receiver.stop());

  const tls = (port: number, ca?: string): SyslogTarget => ({ protocol: 'tls', host: '127.0.0.1', port, ca });

  it('delivers to a receiver whose certificate the configured CA signed, and reconnects after a drop', async () => {
    receiver.messages.length = 0;
    const sender = new SyslogSender(tls(receiver.port, authority.cert), TIMEOUT_MS, ORIGIN);
    assert.deepEqual(await sender.send(event(1, 'denied'), 1, live()), { delivered: true });
    await receiver.waitForMessages(1);
    await receiver.dropConnections();
    assert.deepEqual(await sender.send(event(2, 'allowed'), 1, live()), { delivered: true });
    const messages = await receiver.waitForMessages(2);
    sender.close();
    assert.deepEqual(receiver.errors, []);
    assert.deepEqual(messages.map((message) => [message.severity, message.structuredData[0].id]), [[4, 'audit@32473'], [5, 'audit@32473']]);
  });

  it('checks a host name against the certificate, and sends it for SNI', async () => {
    const named = await SyslogReceiver.start({ tls: authority.issue('DNS:localhost') });
    const sender = new SyslogSender({ protocol: 'tls', host: 'localhost', port: named.port, ca: authority.cert }, TIMEOUT_MS, ORIGIN);
    assert.deepEqual(await sender.send(event(1, 'denied'), 1, live()), { delivered: true });
    await named.waitForMessages(1);
    sender.close();
    await named.stop();
    assert.deepEqual(named.servernames, ['localhost']);
  });

  it('refuses a certificate no trusted CA signed, without the CA file', async () => {
    const sender = new SyslogSender(tls(receiver.port), TIMEOUT_MS, ORIGIN);
    const result = await sender.send(event(1, 'denied'), 1, live());
    sender.close();
    assert.equal(result.delivered, false);
    assert.match(!result.delivered ? result.error : '', /certificate/);
  });

  it("refuses a certificate the CA signed for another name than the receiver's", async () => {
    const elsewhere = await SyslogReceiver.start({ tls: authority.issue('DNS:elsewhere.example') });
    const sender = new SyslogSender(tls(elsewhere.port, authority.cert), TIMEOUT_MS, ORIGIN);
    const result = await sender.send(event(1, 'denied'), 1, live());
    sender.close();
    await elsewhere.stop();
    assert.equal(result.delivered, false);
    assert.match(!result.delivered ? result.error : '', /does not match certificate's altnames/);
    assert.deepEqual(elsewhere.messages, []);
  });

  it('gives up on a receiver that never completes the handshake after its timeout, and says so', async () => {
    const accepted: Socket[] = [];
    const silent = createServer((socket) => accepted.push(socket.on('error', () => undefined))).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const sender = new SyslogSender(tls((silent.address() as { port: number }).port, authority.cert), 300, ORIGIN);
    assert.deepEqual(await sender.send(event(1, 'denied'), 1, live()), { delivered: false, error: 'not written within 300 ms' });
    sender.close();
    accepted.forEach((socket) => socket.destroy());
    silent.close();
  });
});

describe('a failed attempt in one line', () => {
  it("gives each address's error when connecting to every address of a name failed, and folds lines", () => {
    const refused = new AggregateError([new Error('connect ECONNREFUSED ::1:6514'), new Error('connect ECONNREFUSED 127.0.0.1:6514')]);
    assert.equal(oneLine(refused), 'connect ECONNREFUSED ::1:6514; connect ECONNREFUSED 127.0.0.1:6514');
    assert.equal(oneLine(new Error('first line\n  second line')), 'first line second line');
    assert.equal(oneLine(new Error('')), 'the connection failed');
  });
});
