import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AuditChainHead } from '../../database';
import { chainEvents, type ChainedFields, eventHash, eventLeaf, eventLeafHash, GENESIS_HASH, HASHED_FIELDS, nextEvent, type UnchainedEvent } from './audit-chain';
import { appendLeaves, EMPTY_ROOT, frontierRoot, leafHash } from './merkle';

const FIELDS: UnchainedEvent = {
  action: 'asset.decommission',
  outcome: 'denied',
  reason: 'CLEARANCE_INSUFFICIENT',
  actor: 'cadet-3',
  actor_clearance: 3,
  asset_id: 'TIE-0001',
  request_id: 'req-1',
  ip: '10.0.0.7',
  method: 'DELETE',
  path: '/v1/assets/TIE-0001',
  details: null,
};
const HEAD: AuditChainHead = { id: 1, event_count: 4, last_event_id: 41, last_hash: 'a'.repeat(64), last_occurred_at: '2026-11-22T04:00:00.000Z', frontier: '' };
const EVENT: ChainedFields = { ...FIELDS, id: 42, occurred_at: '2026-11-22T04:00:01.000Z', prev_hash: HEAD.last_hash };

describe('eventHash', () => {
  it('is a hex SHA-256 that changes with every stored field and with the previous hash', () => {
    const hash = eventHash(EVENT);
    assert.match(hash, /^[0-9a-f]{64}$/);
    for (const field of HASHED_FIELDS) {
      const changed = { ...EVENT, [field]: typeof EVENT[field] === 'number' ? 7 : 'changed' };
      assert.notEqual(eventHash(changed), hash, field);
    }
  });
});

describe('eventLeafHash', () => {
  const DECOMMISSION = { ...EVENT, outcome: 'allowed' as const, reason: null, details: JSON.stringify({ reason: 'Worn out', authorized_by: 'Quartermaster' }) };

  it('is the RFC 9162 leaf hash of the JSON array of the fields, details as an object last', () => {
    const leaf = JSON.stringify([42, EVENT.occurred_at, 'asset.decommission', 'allowed', null, 'cadet-3', 3, 'TIE-0001', 'req-1', '10.0.0.7', 'DELETE', '/v1/assets/TIE-0001', HEAD.last_hash, { reason: 'Worn out', authorized_by: 'Quartermaster' }]);
    assert.equal(eventLeafHash(DECOMMISSION), leafHash(leaf));
  });

  it('hashes exactly the leaf eventLeaf gives, which the entry bundles serve', () => {
    const leaf = JSON.stringify([42, EVENT.occurred_at, 'asset.decommission', 'allowed', null, 'cadet-3', 3, 'TIE-0001', 'req-1', '10.0.0.7', 'DELETE', '/v1/assets/TIE-0001', HEAD.last_hash, { reason: 'Worn out', authorized_by: 'Quartermaster' }]);
    assert.equal(eventLeaf(DECOMMISSION), leaf);
    assert.equal(eventLeaf({ ...DECOMMISSION, details: null }), `${leaf.slice(0, leaf.lastIndexOf(',{'))},null]`);
  });

  it('changes with every field, the details included', () => {
    const hash = eventLeafHash(DECOMMISSION);
    for (const field of HASHED_FIELDS) {
      assert.notEqual(eventLeafHash({ ...DECOMMISSION, [field]: typeof DECOMMISSION[field] === 'number' ? 7 : 'changed' }), hash, field);
    }
    assert.notEqual(eventLeafHash({ ...DECOMMISSION, details: JSON.stringify({ reason: 'Worn out', authorized_by: 'Someone else' }) }), hash);
    assert.notEqual(eventLeafHash({ ...DECOMMISSION, details: null }), hash);
  });

  it('keeps values apart: moving text between fields, null and "null", 7 and "7" all hash differently', () => {
    assert.notEqual(eventHash({ ...EVENT, actor: 'cadet-3', asset_id: 'TIE-0001' }), eventHash({ ...EVENT, actor: 'cadet-3TIE-0001', asset_id: '' }));
    assert.notEqual(eventHash({ ...EVENT, reason: null }), eventHash({ ...EVENT, reason: 'null' }));
    // As read from JSON, where nothing checks the type: the round trip alone changes no hash.
    const fromJson = (event: object): ChainedFields => JSON.parse(JSON.stringify(event));
    assert.equal(eventHash(fromJson({ ...EVENT, actor_clearance: 7 })), eventHash({ ...EVENT, actor_clearance: 7 }));
    assert.notEqual(eventHash({ ...EVENT, actor_clearance: 7 }), eventHash(fromJson({ ...EVENT, actor_clearance: '7' })));
  });

  it('ignores the stored hash itself, so a row read back can be checked against it', () => {
    assert.equal(eventHash({ ...EVENT, hash: 'anything' } as ChainedFields), eventHash(EVENT));
  });
});

describe('nextEvent', () => {
  it('takes the next id after the head and links to the head hash', () => {
    const event = nextEvent(HEAD, FIELDS, new Date('2026-11-22T04:00:01.000Z'));
    assert.deepEqual(event, { ...EVENT, hash: eventHash(EVENT), leaf_hash: eventLeafHash(EVENT), leaf_index: HEAD.event_count });
  });

  it('starts a chain at id 1 after the genesis hash', () => {
    const empty = { ...HEAD, event_count: 0, last_event_id: 0, last_hash: GENESIS_HASH, last_occurred_at: null };
    const event = nextEvent(empty, FIELDS, new Date('2026-11-22T04:00:01.000Z'));
    assert.deepEqual([event.id, event.prev_hash, event.occurred_at], [1, '0'.repeat(64), '2026-11-22T04:00:01.000Z']);
  });

  it('never goes back in time: a clock behind the last event gives the last event time', () => {
    const event = nextEvent(HEAD, FIELDS, new Date('2026-11-22T03:59:59.000Z'));
    assert.equal(event.occurred_at, HEAD.last_occurred_at);
  });
});

describe('chainEvents', () => {
  const waiting = ['04:00:03', '04:00:02', '04:00:05'].map((time, index) => ({
    ...FIELDS,
    request_id: `req-${index}`,
    recorded_at: `2026-11-22T${time}.000Z`,
  }));

  it('gives a batch consecutive positions after the head, each linked to the one before, and returns the new head', () => {
    const { events, head } = chainEvents({ ...HEAD, event_count: 0 }, waiting);
    assert.deepEqual(
      events.map(({ id, request_id }) => [id, request_id]),
      [[42, 'req-0'], [43, 'req-1'], [44, 'req-2']],
    );
    assert.equal(events[0].prev_hash, HEAD.last_hash);
    events.forEach((event, index) => {
      assert.equal(event.hash, eventHash(event));
      if (index > 0) {
        assert.equal(event.prev_hash, events[index - 1].hash);
      }
    });
    const tree = appendLeaves({ size: 0, hashes: [] }, events.map((event) => event.leaf_hash));
    assert.deepEqual(head, {
      id: 1,
      event_count: 3,
      last_event_id: 44,
      last_hash: events[2].hash,
      last_occurred_at: events[2].occurred_at,
      frontier: tree.frontier.hashes.join(','),
    });
    assert.deepEqual(events.map((event) => event.leaf_index), [0, 1, 2]);
  });

  it('grows the tree from the frontier in the head, returning the subtrees the batch completed', () => {
    const first = chainEvents({ ...HEAD, event_count: 0 }, waiting.slice(0, 1));
    const rest = [...waiting.slice(1), waiting[0]];
    const { head, nodes } = chainEvents(first.head, rest);
    const all = [...first.events, ...chainEvents(first.head, rest).events].map((event) => event.leaf_hash);
    assert.equal(frontierRoot(head.frontier.split(',')), frontierRoot(appendLeaves({ size: 0, hashes: [] }, all).frontier.hashes));
    // Four leaves complete two pairs, which are not stored, and the subtree of all four.
    assert.deepEqual(nodes.map(({ level, index }) => [level, index]), [[2, 0]]);
    assert.equal(frontierRoot([]), EMPTY_ROOT);
  });

  it('takes each time of decision, or the time before it when that is later, so times never go back', () => {
    const { events } = chainEvents(HEAD, waiting);
    assert.deepEqual(
      events.map((event) => event.occurred_at),
      ['2026-11-22T04:00:03.000Z', '2026-11-22T04:00:03.000Z', '2026-11-22T04:00:05.000Z'],
    );
  });

  it('leaves the head as it is for an empty batch', () => {
    assert.deepEqual(chainEvents(HEAD, []), { events: [], head: HEAD, nodes: [] });
  });
});
