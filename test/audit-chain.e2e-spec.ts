import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventHash } from '../src/audit/trail/audit-chain';
import type { AuditEventRow } from '../src/database';
import { createTestDatabase, describeEachDatabase, failAuditEvents, type TestDatabase } from './support/databases';
import { decommission, expectErrorBody, listAuditEvents, listFleet, verifyAuditChain } from './support/http';
import { runScript, SCRIPTS } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';

const VERIFY = '/v1/audit/verify';

describeEachDatabase('the audit hash chain', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let t: TestApp;
  let admiral: string;

  const verify = async () => {
    const res = await verifyAuditChain(t, admiral).expect(200);
    assert.equal(res.body.status, 'success');
    return res.body.data;
  };
  const verifyByCommand = () => runScript(SCRIPTS.auditVerify, [], { cwd: dir, env: { DATABASE_URL: database.url } });
  const chain = () => t.db.selectFrom('audit_events').selectAll().orderBy('id').execute();
  const anonymous = (requestId: string) => listFleet(t, '').set('X-Request-Id', requestId).expect(401);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-chain-'));
    database = await createTestDatabase(engine, dir);
    t = await startTestApp({ engine, database });
    admiral = t.bearer('admiral-7', 7);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('GET /v1/audit/verify', () => {
    it('refuses clearance 6 with 403 CLEARANCE_INSUFFICIENT and records the refusal as audit.verify', async () => {
      expectErrorBody(await verifyAuditChain(t, t.bearer('lieutenant-6', 6)), 403, 'CLEARANCE_INSUFFICIENT');
      const last = (await chain()).at(-1);
      assert.deepEqual(
        [last?.action, last?.outcome, last?.reason, last?.actor, last?.path],
        ['audit.verify', 'denied', 'CLEARANCE_INSUFFICIENT', 'lieutenant-6', VERIFY],
      );
    });

    it('refuses a request without a token with 401', async () => {
      expectErrorBody(await verifyAuditChain(t), 401, 'UNAUTHENTICATED');
    });

    it('answers intact with the length and the hash of the last event, and the command agrees', async () => {
      await anonymous('before-verify');
      const events = await chain();
      assert.deepEqual(await verify(), { state: 'intact', length: events.length, head_hash: events.at(-1)?.hash });

      const command = await verifyByCommand();
      assert.equal(command.code, 0, command.stderr);
      assert.match(command.stdout, new RegExp(`^Audit chain intact: ${events.length} events, head ${events.at(-1)?.hash} `));
      assert.equal(command.stdout.trim().split('\n').length, 1);
    });
    it('is documented in the OpenAPI document, with its answer and its 403', async () => {
      const doc = (await t.http().get('/docs-json').expect(200)).body;
      const operation = doc.paths[VERIFY].get;
      assert.deepEqual(Object.keys(operation.responses).sort(), ['200', '401', '403', '429', '500', '503']);
      const data = doc.components.schemas.AuditChainVerificationDto;
      assert.deepEqual(Object.keys(data.properties).sort(), ['disagreeing_assets', 'first_broken_event_id', 'head_hash', 'length', 'problem', 'state']);
    });
  });

  describe('appending', () => {
    it('links each event to the one before it, in id order without gaps, with times that never go back', async () => {
      const events = await chain();
      for (let i = 1; i < events.length; i++) {
        assert.equal(events[i].id, events[i - 1].id + 1);
        assert.equal(events[i].prev_hash, events[i - 1].hash);
        assert.equal(events[i].hash, eventHash(events[i]));
        assert.ok(events[i].occurred_at >= events[i - 1].occurred_at);
      }
    });

    it('stays intact under many concurrent denials and decommissions, with occurred_at never decreasing', async () => {
      const lengthBefore = (await verify()).length;
      const cadet = t.bearer('cadet-3', 3);
      const requests = Array.from({ length: 60 }, (_, index) => {
        const assetId = ['TIE-0001', 'TIE-0002', 'EQP-0001', 'FAC-0001'][index % 4];
        if (index % 3 === 0) return anonymous(`flood-${index}`);
        const token = index % 3 === 1 ? cadet : admiral;
        return decommission(t, assetId, token);
      });
      const statuses = (await Promise.all(requests)).map((res) => res.status);
      assert.deepEqual(statuses.filter((status) => status >= 500), [], 'every request answered, so every one recorded');
      assert.equal(statuses.filter((status) => status === 200).length, 4);

      const result = await verify();
      assert.equal(result.state, 'intact');
      assert.equal(result.length, lengthBefore + 60);
      const listed = await listAuditEvents(t, 'limit=100', admiral).expect(200);
      const events: AuditEventRow[] = listed.body.data.events;
      assert.equal(events[0].hash, result.head_hash, 'the listing starts at the head of the chain');
      for (let i = 1; i < events.length; i++) {
        assert.equal(events[i - 1].id, events[i].id + 1, 'newest first in chain order');
        assert.ok(events[i - 1].occurred_at >= events[i].occurred_at, 'occurred_at never decreases along the chain');
      }
    });

    it('stores and hashes an actor with a lone surrogate the same way, so the event still verifies', async () => {
      await decommission(t, 'TIE-0001', t.bearer('cadet-\uD800', 3)).expect(403);
      assert.match((await chain()).at(-1)?.actor ?? '', /^cadet-/);
      assert.equal((await verify()).state, 'intact');
    });

    it('rolls the chain head back with a decommission whose event cannot be written', async () => {
      const before = await verify();
      await t.db.insertInto('assets').values({ asset_id: 'TXN-0009', asset_type: 'vehicle', former_pilot: 'TK-9' }).execute();
      const restore = await failAuditEvents(t.db, engine, 'allowed');
      try {
        await decommission(t, 'TXN-0009', admiral).expect(503);
      } finally {
        await restore();
      }
      assert.deepEqual(await verify(), before);
      await decommission(t, 'TXN-0009', admiral).expect(200);
      assert.equal((await verify()).state, 'intact');
    });
  });

  describe('tampering, caught by the route and by npm run audit:verify', () => {
    let events: AuditEventRow[];

    before(async () => {
      for (let i = 0; i < 5; i++) {
        await anonymous(`tamper-${i}`);
      }
      events = (await chain()).slice(-5);
    });

    /** Tampers with the rows, checks both verifiers name the event and the problem, then puts the rows back. */
    const caught = async (tamper: () => Promise<unknown>, eventId: () => number, problem: string) => {
      const head = await verify();
      assert.equal(head.state, 'intact');
      const original = await chain();
      await tamper();
      try {
        assert.deepEqual(await verify(), {
          state: 'broken',
          length: head.length,
          head_hash: head.head_hash,
          first_broken_event_id: eventId(),
          problem,
        });
        const command = await verifyByCommand();
        assert.equal(command.code, 1);
        assert.match(command.stderr, new RegExp(`^Audit chain broken at event ${eventId()} \\(${problem}\\)`));
      } finally {
        await t.db.deleteFrom('audit_events').execute();
        await t.db.insertInto('audit_events').values(original).execute();
      }
    };
    /** Moves every event from `id` on one place up, in two steps so that no id is ever held twice. */
    const makeRoomAt = async (id: number) => {
      await t.db.updateTable('audit_events').set((eb) => ({ id: eb.neg(eb.ref('id')) })).where('id', '>=', id).execute();
      await t.db
        .updateTable('audit_events')
        .set((eb) => ({ id: eb(eb.neg(eb.ref('id')), '+', 1) }))
        .where('id', '<', 0)
        .execute();
    };

    it('catches an edited event', () =>
      caught(
        () => t.db.updateTable('audit_events').set({ path: '/v1/nothing-to-see' }).where('id', '=', events[2].id).execute(),
        () => events[2].id,
        'HASH_MISMATCH',
      ));

    it('catches an event deleted from the middle, naming the one after it', () =>
      caught(() => t.db.deleteFrom('audit_events').where('id', '=', events[2].id).execute(), () => events[3].id, 'LINK_MISMATCH'));

    it('catches the last event deleted: the head no longer matches', () =>
      caught(() => t.db.deleteFrom('audit_events').where('id', '=', events[4].id).execute(), () => events[4].id, 'HEAD_MISMATCH'));

    it('catches an event inserted in the middle', () =>
      caught(
        async () => {
          await makeRoomAt(events[3].id);
          await t.db
            .insertInto('audit_events')
            .values({ ...events[3], request_id: 'forged', prev_hash: events[2].hash, hash: 'f'.repeat(64) })
            .execute();
        },
        () => events[3].id,
        'HASH_MISMATCH',
      ));

    it('catches an event appended after the head, even with a correct hash', () =>
      caught(
        async () => {
          const forged = { ...events[4], id: events[4].id + 1, request_id: 'forged', prev_hash: events[4].hash };
          await t.db
            .insertInto('audit_events')
            .values({ ...forged, hash: eventHash(forged) })
            .execute();
        },
        () => events[4].id + 1,
        'PAST_HEAD',
      ));

    it('catches two events swapped', () =>
      caught(
        async () => {
          await t.db.updateTable('audit_events').set({ id: -1 }).where('id', '=', events[1].id).execute();
          await t.db.updateTable('audit_events').set({ id: events[1].id }).where('id', '=', events[2].id).execute();
          await t.db.updateTable('audit_events').set({ id: events[2].id }).where('id', '=', -1).execute();
        },
        () => events[1].id,
        'HASH_MISMATCH',
      ));

    it('is intact again once the rows are put back', async () => {
      assert.equal((await verify()).state, 'intact');
    });
  });
});
