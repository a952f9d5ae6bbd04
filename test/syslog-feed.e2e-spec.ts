import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { decommission, recommission } from './support/http';
import type { Rfc5424Message } from './support/rfc5424';
import { SyslogReceiver } from './support/syslog-receiver';
import { startTestApp, type TestApp } from './support/test-app';
import { TestCertificateAuthority } from './support/tls-certificates';
import { waitUntil } from './support/wait';

describeEachDatabase('the syslog feed (AUDIT_SYSLOG_URL)', (engine) => {
  let receiver: SyslogReceiver;
  let t: TestApp;
  /** The chain's head when the app started: the feed begins after it. */
  let startHead: number;

  before(async () => {
    receiver = await SyslogReceiver.start();
    t = await startTestApp({ engine, env: { AUDIT_SYSLOG_URL: `tcp://127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_BASE_MS: '20' } });
    startHead = (await t.db.selectFrom('audit_events').select((eb) => eb.fn.max('id').as('head')).executeTakeFirstOrThrow()).head ?? 0;
  });
  after(async () => {
    await t.close();
    await receiver.stop();
  });

  /** The trail's events since the app started, in chain order. */
  const trail = () => t.db.selectFrom('audit_events').selectAll().where('id', '>', startHead).orderBy('id').execute();
  const idOf = (message: Rfc5424Message): number => Number(new Map(message.structuredData[0].params).get('id'));
  /** The ids received, each once, in the order they first came: at least once allows a repeat. */
  const receivedIds = (): number[] => [...new Set(receiver.messages.map(idOf))];

  async function waitForTheWholeTrail(): Promise<void> {
    const ids = (await trail()).map((event) => event.id);
    await waitUntil(
      () => receiver.errors.length > 0 || receivedIds().length >= ids.length,
      () => `the receiver has events ${receivedIds().join(',')} of ${ids.join(',')}`,
    );
    assert.deepEqual(receiver.errors, []);
  }

  it('sends every decision as an RFC 5424 message, in chain order, severity 4 for a denial and 5 otherwise', async () => {
    await decommission(t, 'TIE-0001', t.bearer('officer-3', 3)).expect(403);
    await decommission(t, 'TIE-0001', t.bearer('officer-7', 7)).expect(200);
    await recommission(t, 'TIE-0001', t.bearer('officer-9', 9)).expect(200);
    await decommission(t, 'TIE-0001', 'Bearer not-a-token').expect(401);

    await waitForTheWholeTrail();
    const events = await trail();
    assert.deepEqual(receivedIds(), events.map((event) => event.id));
    assert.deepEqual(
      receiver.messages.map((message) => {
        const params = new Map(message.structuredData[0].params);
        return [message.facility, message.severity, message.appName, message.msgId, message.timestamp, message.structuredData[0].id, params.get('outcome'), params.get('reason'), params.get('actor'), params.get('asset_id'), params.get('leaf_hash')];
      }),
      events.map((event) => [13, event.outcome === 'denied' ? 4 : 5, 'fleet-registry', event.action, event.occurred_at, 'audit@32473', event.outcome, event.reason ?? undefined, event.actor ?? undefined, event.asset_id ?? undefined, event.leaf_hash]),
    );
    assert.deepEqual(
      events.map((event) => [event.action, event.outcome]),
      [
        ['asset.decommission', 'denied'],
        ['asset.decommission', 'allowed'],
        ['asset.recommission', 'allowed'],
        ['auth.authenticate', 'denied'],
      ],
    );
  });

  it('loses nothing while the receiver is down: it reconnects when the receiver is back and sends what it missed, in order', async () => {
    await receiver.stop();
    await decommission(t, 'TIE-0002', t.bearer('officer-7', 7)).expect(200);
    await decommission(t, 'TIE-0002', t.bearer('officer-2', 2)).expect(403);
    const refused = () => t.db.selectFrom('delivery_attempts').select(['event_id', 'error']).where('feed_id', '=', 'syslog').where('error', 'like', 'connect ECONNREFUSED%').execute();
    await waitUntil(async () => (await refused()).length >= 2, 'the feed never tried the receiver while it was down');
    await receiver.listen();
    await recommission(t, 'TIE-0002', t.bearer('officer-7', 7)).expect(200);

    await waitForTheWholeTrail();
    const events = await trail();
    assert.deepEqual(receivedIds(), events.map((event) => event.id));
    assert.deepEqual(new Set((await refused()).map((attempt) => attempt.event_id)), new Set([events.at(-3)?.id]), 'retried the first event sent while the receiver was down, nothing after it');
  });
});

describe('the syslog feed over TLS (AUDIT_SYSLOG_URL=tls://, AUDIT_SYSLOG_CA_FILE)', () => {
  const authority = TestCertificateAuthority.create();
  let receiver: SyslogReceiver;
  let t: TestApp;

  before(async () => {
    receiver = await SyslogReceiver.start({ tls: authority.issue('IP:127.0.0.1') });
    t = await startTestApp({ env: { AUDIT_SYSLOG_URL: `tls://127.0.0.1:${receiver.port}`, AUDIT_SYSLOG_CA_FILE: authority.certFile() } });
  });
  after(async () => {
    await t.close();
    await receiver.stop();
  });

  it('sends to a receiver whose certificate the CA of AUDIT_SYSLOG_CA_FILE signed', async () => {
    await decommission(t, 'TIE-0001', t.bearer('officer-3', 3)).expect(403);
    const [message] = await receiver.waitForMessages(1);
    assert.deepEqual(receiver.errors, []);
    assert.deepEqual([message.severity, message.msgId, new Map(message.structuredData[0].params).get('actor')], [4, 'asset.decommission', 'officer-3']);
  });
});
