import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRfc5424, takeFrames } from '../../../test/support/rfc5424';
import { AUDIT_ACTIONS, type ShownAuditEvent } from '../../audit';
import { syslogFrame, syslogMessage, syslogOrigin } from './syslog-message';

const ORIGIN = { hostname: 'registry-1.example.org', procId: '4242' };

function event(fields: Partial<ShownAuditEvent> = {}): ShownAuditEvent {
  return {
    id: 7,
    occurred_at: '2026-11-21T10:15:30.123Z',
    action: 'asset.decommission',
    outcome: 'denied',
    reason: 'CLEARANCE_INSUFFICIENT',
    actor: 'officer-3',
    actor_clearance: 3,
    asset_id: 'TIE-0001',
    request_id: '0f6f3f0e-6a53-4d1a-9d56-2b1b8d1c1e7a',
    ip: '127.0.0.1',
    method: 'DELETE',
    path: '/v1/assets/TIE-0001',
    prev_hash: 'c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2',
    details: null,
    hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    leaf_hash: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    ...fields,
  };
}

const params = (message: Buffer): Record<string, string> => Object.fromEntries(parseRfc5424(message).structuredData[0].params);

describe('syslog messages', () => {
  it('writes a denial as an RFC 5424 message: facility log audit, severity warning, the event time, SD-ID audit@32473', () => {
    assert.equal(
      syslogMessage(event(), ORIGIN).toString('utf8'),
      '<108>1 2026-11-21T10:15:30.123Z registry-1.example.org fleet-registry 4242 asset.decommission ' +
        '[audit@32473 id="7" outcome="denied" actor="officer-3" asset_id="TIE-0001" reason="CLEARANCE_INSUFFICIENT" leaf_hash="n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="] ' +
        'asset.decommission denied CLEARANCE_INSUFFICIENT by officer-3 on asset TIE-0001',
    );
  });

  it('gives what is allowed severity notice and leaves out the fields an event does not have', () => {
    const allowed = syslogMessage(event({ outcome: 'allowed', reason: null, actor: null, asset_id: null }), ORIGIN).toString('utf8');
    assert.equal(
      allowed,
      '<109>1 2026-11-21T10:15:30.123Z registry-1.example.org fleet-registry 4242 asset.decommission ' +
        '[audit@32473 id="7" outcome="allowed" leaf_hash="n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg="] ' +
        'asset.decommission allowed by an unauthenticated caller',
    );
  });

  it('frames a message with its length in bytes, not characters', () => {
    const frame = syslogFrame(event({ actor: 'Ørsted 🚀' }), ORIGIN);
    const message = syslogMessage(event({ actor: 'Ørsted 🚀' }), ORIGIN);
    assert.ok(message.length > message.toString('utf8').length);
    assert.deepEqual(frame.subarray(0, `${message.length} `.length).toString('ascii'), `${message.length} `);
    assert.deepEqual(takeFrames(frame), { messages: [message], rest: Buffer.alloc(0) });
  });

  it('escapes quotes, backslashes and closing brackets in values, and keeps them exact for a parser', () => {
    const hostile = 'a"] [evil@1 x="y\\"]\\';
    const message = syslogMessage(event({ actor: hostile, asset_id: ']]"\\' }), ORIGIN);
    assert.match(message.toString('utf8'), /actor="a\\"\\] \[evil@1 x=\\"y\\\\\\"\\]\\\\" asset_id="\\]\\]\\"\\\\"/);
    const parsed = parseRfc5424(message);
    assert.equal(parsed.structuredData.length, 1);
    assert.equal(params(message).actor, hostile);
    assert.equal(params(message).asset_id, ']]"\\');
  });

  it('keeps newlines and non-ASCII in values as UTF-8, and puts the BOM before a MSG that holds them, on one line', () => {
    const actor = 'line one\r\nline two\u0000 — Ærø';
    const message = syslogMessage(event({ actor }), ORIGIN);
    const parsed = parseRfc5424(message);
    assert.equal(params(message).actor, actor);
    assert.equal(parsed.msgHasBom, true);
    assert.equal(parsed.msg, 'asset.decommission denied CLEARANCE_INSUFFICIENT by line one\uFFFD\uFFFDline two\uFFFD — Ærø on asset TIE-0001');
    assert.equal(parseRfc5424(syslogMessage(event(), ORIGIN)).msgHasBom, false);
  });

  it('carries long values whole: octet counting has no length limit', () => {
    const actor = 'x'.repeat(300) + '"'.repeat(300);
    const frame = syslogFrame(event({ actor, asset_id: 'A'.repeat(64) }), ORIGIN);
    const [message] = takeFrames(frame).messages;
    assert.equal(params(message).actor, actor);
    assert.equal(params(message).asset_id, 'A'.repeat(64));
  });

  it('names an action as MSGID only when it is 1 to 32 printable ASCII characters, and every action of the trail is', () => {
    for (const action of Object.values(AUDIT_ACTIONS)) {
      assert.equal(parseRfc5424(syslogMessage(event({ action }), ORIGIN)).msgId, action);
    }
    assert.equal(parseRfc5424(syslogMessage(event({ action: 'a'.repeat(33) }), ORIGIN)).msgId, null);
    assert.equal(parseRfc5424(syslogMessage(event({ action: 'asset decommission' }), ORIGIN)).msgId, null);
  });

  it("names this host and process, or '-' for a host name the header cannot carry", () => {
    assert.deepEqual(syslogOrigin('registry-1', 4242), { hostname: 'registry-1', procId: '4242' });
    assert.equal(syslogOrigin('hôte').hostname, '-');
    assert.equal(syslogOrigin('two words').hostname, '-');
    assert.equal(syslogOrigin('').hostname, '-');
    assert.equal(syslogOrigin('h'.repeat(256)).hostname, '-');
    assert.equal(parseRfc5424(syslogMessage(event(), syslogOrigin('hôte', 1))).hostname, null);
  });
});
