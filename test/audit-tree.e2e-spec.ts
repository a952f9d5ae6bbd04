import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { decommission, expectErrorBody, listAuditEvents, listFleet } from './support/http';
import { freePort, runScript, SCRIPTS } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

/** Checkpoints are signed on a timer: waits for one that holds. */
const untilCheckpointed = (check: () => Promise<boolean>) => waitUntil(check, 'no checkpoint of the expected size within 10 s');
import { AuditWriteRepository } from '../src/audit';
import type { AuditEventRow } from '../src/database';

/*
 * An RFC 9162 verifier written here from the RFC, apart from the service's code: it computes the tree,
 * the paths and the proofs from the leaves by the RFC's recursive definitions, and the service must
 * answer exactly those.
 */
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const leaf = (bytes: Buffer) => sha256(Buffer.from([0]), bytes);
const node = (left: Buffer, right: Buffer) => sha256(Buffer.from([1]), left, right);
/** The largest power of two smaller than n. */
const split = (n: number) => 2 ** Math.floor(Math.log2(n - 1));
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0];
  const k = split(leaves.length);
  return node(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
function path(m: number, leaves: Buffer[]): Buffer[] {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}
function subproof(m: number, leaves: Buffer[], whole: boolean): Buffer[] {
  if (m === leaves.length) return whole ? [] : [mth(leaves)];
  const k = split(leaves.length);
  return m <= k
    ? [...subproof(m, leaves.slice(0, k), whole), mth(leaves.slice(k))]
    : [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}
const b64 = (hashes: Buffer[]) => hashes.map((hash) => hash.toString('base64'));

/** The leaf bytes as docs/audit.md defines them: the JSON array of the fields from id to details. */
const LEAF_FIELDS = ['id', 'occurred_at', 'action', 'outcome', 'reason', 'actor', 'actor_clearance', 'asset_id', 'request_id', 'ip', 'method', 'path', 'prev_hash', 'details'];
const leafOf = (event: Record<string, unknown>) => leaf(Buffer.from(JSON.stringify(LEAF_FIELDS.map((field) => event[field]))));

/** A C2SP note checked from the verifier key alone, as an outsider would. */
function openNote(note: string, verifierKey: string): { origin: string; size: number; root: string } {
  const [name, id, ...keyParts] = verifierKey.trim().split('+');
  const key = keyParts.join('+');
  const raw = Buffer.from(key, 'base64');
  assert.equal(raw[0], 0x01, 'Ed25519 signature type');
  const keyId = sha256(Buffer.from(`${name}\n`), raw).subarray(0, 4);
  assert.equal(keyId.toString('hex'), id, 'key id is SHA-256(name || 0x0A || 0x01 || key)[:4]');
  const [body, signatures] = note.split('\n\n');
  const match = /^\u2014 (\S+) (\S+)\n$/.exec(signatures);
  assert.ok(match, `one signature line: ${JSON.stringify(signatures)}`);
  assert.equal(match[1], name);
  const signature = Buffer.from(match[2], 'base64');
  assert.deepEqual(signature.subarray(0, 4), keyId);
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.subarray(1).toString('base64url') }, format: 'jwk' });
  assert.ok(verify(null, Buffer.from(`${body}\n`), publicKey, signature.subarray(4)), 'the signature checks');
  const [origin, size, root] = body.split('\n');
  return { origin, size: Number(size), root };
}

describeEachDatabase('the audit tree: leaf hashes, signed checkpoints and proofs', (engine) => {
  let t: TestApp;
  let admiral: string;
  let events: (Record<string, unknown> & { id: number })[];
  let leaves: Buffer[];

  const get = (path: string, authorization = admiral) => t.http().get(path).set('Authorization', authorization);
  const checkpoint = async () => (await get('/v1/audit/checkpoint').expect(200)).text;
  const eventCount = async () => Number((await t.db.selectFrom('audit_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  before(async () => {
    t = await startTestApp({ engine, env: { AUDIT_CHECKPOINT_INTERVAL_MS: '100', AUDIT_LOG_ORIGIN: 'registry.test/audit' } });
    admiral = t.bearer('admiral-7', 7);
    for (let i = 0; i < 12; i++) {
      await listFleet(t, '').set('X-Request-Id', `tree-${i}`).expect(401);
    }
    await decommission(t, 'TIE-0001', admiral).expect(200);
    events = (await listAuditEvents(t, 'limit=100', admiral).expect(200)).body.data.events.reverse();
    leaves = events.map(leafOf);
    await untilCheckpointed(async () => openNote(await checkpoint(), (await get('/v1/audit/checkpoint/verifier-key')).text).size === events.length);
  });
  after(() => t.close());

  it('gives every event the leaf hash of its documented leaf bytes, in standard base64', () => {
    assert.equal(events.length, 13);
    for (const event of events) {
      assert.equal(event.leaf_hash, leafOf(event).toString('base64'), `event ${event.id}`);
    }
  });

  it("records an allowed decommission's reason and officer in its event's details, null in the others", () => {
    const allowed = events.filter((event) => event.outcome === 'allowed');
    assert.deepEqual(allowed.map((event) => event.details), [DECOMMISSION_BODY]);
    assert.ok(events.filter((event) => event.outcome !== 'allowed').every((event) => event.details === null));
  });

  it('serves a C2SP checkpoint as plain text, signed by the published verifier key, of the whole tree', async () => {
    const reply = await get('/v1/audit/checkpoint').expect(200);
    assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8');
    const key = await get('/v1/audit/checkpoint/verifier-key').expect(200);
    assert.match(key.text, /^registry\.test\/audit\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}\n$/);
    assert.deepEqual(openNote(reply.text, key.text), { origin: 'registry.test/audit', size: events.length, root: mth(leaves).toString('base64') });
  });

  it('proves every event in every tree that holds it, with the RFC 9162 path and root', async () => {
    for (const size of [1, 2, 3, 7, 8, 12, 13]) {
      for (let index = 0; index < size; index++) {
        const { body } = await get(`/v1/audit/events/${events[index].id}/inclusion-proof?tree_size=${size}`).expect(200);
        assert.deepEqual(body, {
          status: 'success',
          data: {
            leaf_index: index,
            tree_size: size,
            leaf_hash: leaves[index].toString('base64'),
            inclusion_path: b64(path(index, leaves.slice(0, size))),
            root_hash: mth(leaves.slice(0, size)).toString('base64'),
          },
        });
      }
    }
  });

  it("proves inclusion in the latest checkpoint's tree when no tree_size is given", async () => {
    const { body } = await get(`/v1/audit/events/${events[4].id}/inclusion-proof`).expect(200);
    assert.equal(body.data.tree_size, events.length);
    assert.deepEqual(body.data.inclusion_path, b64(path(4, leaves)));
  });

  it('proves each tree consistent with every larger one, with the RFC 9162 proof', async () => {
    for (let second = 1; second <= leaves.length; second++) {
      for (let first = 1; first <= second; first++) {
        const { body } = await get(`/v1/audit/consistency-proof?first=${first}&second=${second}`).expect(200);
        assert.deepEqual(body.data, { first, second, consistency_path: b64(subproof(first, leaves.slice(0, second), true)) }, `${first} to ${second}`);
      }
    }
  });

  it('refuses unknown events, bad sizes and sizes past the tree with the error body naming the field', async () => {
    const refused = async (path: string, status: number, errorCode: string, message: RegExp) => {
      const reply = await get(path);
      expectErrorBody(reply, status, errorCode);
      assert.match(reply.body.message, message);
    };
    await refused('/v1/audit/events/99999/inclusion-proof', 404, 'AUDIT_EVENT_NOT_FOUND', /Audit event 99999 not found/);
    await refused('/v1/audit/events/abc/inclusion-proof', 400, 'VALIDATION_ERROR', /^id must be a whole number/);
    await refused(`/v1/audit/events/${events[0].id}/inclusion-proof?tree_size=0`, 400, 'VALIDATION_ERROR', /^tree_size must be a whole number/);
    await refused(`/v1/audit/events/${events[0].id}/inclusion-proof?tree_size=1000`, 400, 'VALIDATION_ERROR', /tree_size 1000 is past the end of the tree, which has 13 events/);
    await refused(`/v1/audit/events/${events[5].id}/inclusion-proof?tree_size=3`, 400, 'VALIDATION_ERROR', /tree_size 3 does not include event/);
    await refused('/v1/audit/consistency-proof?second=3', 400, 'VALIDATION_ERROR', /first is required/);
    await refused('/v1/audit/consistency-proof?first=4&second=3', 400, 'VALIDATION_ERROR', /first \(4\) must not be greater than second \(3\)/);
    await refused('/v1/audit/consistency-proof?first=1&second=1000', 400, 'VALIDATION_ERROR', /second 1000 is past the end of the tree/);
  });

  it('needs clearance 7; a refusal is recorded, a read grows nothing', async () => {
    const before = await eventCount();
    await get('/v1/audit/consistency-proof?first=1&second=2').expect(200);
    await get('/v1/audit/checkpoint').expect(200);
    assert.equal(await eventCount(), before);
    for (const route of ['/v1/audit/checkpoint', '/v1/audit/checkpoint/verifier-key', `/v1/audit/events/${events[0].id}/inclusion-proof`, '/v1/audit/consistency-proof?first=1&second=2']) {
      await get(route, t.bearer('cadet-3', 3)).expect(403);
    }
    assert.equal(await eventCount(), before + 4);
  });
});

describeEachDatabase('the witness and audit:verify --checkpoint against tampering', (engine) => {
  let t: TestApp;
  let dir: string;
  let url: string;
  let token: string;
  let databaseUrl: string;
  const state = () => join(dir, 'witness.json');

  const witness = () => runScript(SCRIPTS.auditWitness, ['--url', url, '--token', token, '--state', state()], { cwd: dir });
  const verifyAgainst = (file: string) => runScript(SCRIPTS.auditVerify, ['--checkpoint', file, '--verifier-key', verifierKey()], { cwd: dir, env: { DATABASE_URL: databaseUrl } });
  const verifierKey = () => JSON.parse(readFileSync(state(), 'utf8')).verifier_key as string;
  const size = async () => (await t.db.selectFrom('audit_chain_head').select('event_count').executeTakeFirstOrThrow()).event_count;
  const grow = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await listFleet(t, '').expect(401);
    }
  };
  const signed = async () => {
    const target = await size();
    await untilCheckpointed(async () => (await t.db.selectFrom('audit_checkpoint').select('tree_size').executeTakeFirst())?.tree_size === target);
  };
  /** Every table of the trail, as a backup holds it. */
  const TABLES = ['audit_events', 'audit_tree_nodes', 'audit_chain_head', 'audit_checkpoint'] as const;
  const backup = async () => Object.fromEntries(await Promise.all(TABLES.map(async (table) => [table, await t.db.selectFrom(table).selectAll().execute()])));
  /** In one transaction, as a restore is: the app's checkpointer, every 100 ms, cannot sign in between a table's delete and its insert. */
  const restore = (rows: Record<string, unknown[]>) =>
    t.db.transaction().execute(async (trx) => {
      for (const table of TABLES) {
        await trx.deleteFrom(table).execute();
        if (rows[table].length > 0) await trx.insertInto(table).values(rows[table]).execute();
      }
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-registry-witness-'));
    t = await startTestApp({ engine, env: { AUDIT_CHECKPOINT_INTERVAL_MS: '100' } });
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    token = t.bearer('witness-7', 7).slice('Bearer '.length);
    databaseUrl = t.config.database.dialect === 'sqlite' ? `sqlite:${t.config.database.path}` : t.config.database.url;
    await grow(3);
    await signed();
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trusts the first checkpoint, then accepts growth proven consistent', async () => {
    const first = await witness();
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^Witnessed fleet-registry\.invalid\/audit at 3 events, root \S+ \(first checkpoint: trusted as it is\)\n$/);
    await grow(4);
    await signed();
    const second = await witness();
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /at 7 events/);
  });

  it('audit:verify --checkpoint accepts the database the checkpoint was taken of', async () => {
    const file = join(dir, 'checkpoint.txt');
    writeFileSync(file, JSON.parse(readFileSync(state(), 'utf8')).checkpoint);
    const result = await verifyAgainst(file);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Audit chain intact: 7 events, .*its first 7 events have the checkpoint's root/);
  });

  it('rejects a rollback to an older backup: the witness and audit:verify --checkpoint', async () => {
    const older = await backup();
    await grow(2);
    await signed();
    assert.equal((await witness()).code, 0);
    const file = join(dir, 'checkpoint-9.txt');
    writeFileSync(file, JSON.parse(readFileSync(state(), 'utf8')).checkpoint);
    const kept = readFileSync(state(), 'utf8');
    const newer = await backup();
    await restore(older);
    try {
      const refused = await witness();
      assert.equal(refused.code, 1);
      assert.equal(refused.stderr, 'The log shrank from 9 to 7 events: it was rolled back, e.g. restored from an older backup\n');
      assert.equal(readFileSync(state(), 'utf8'), kept, 'the state file is left as it was');
      const verified = await verifyAgainst(file);
      assert.equal(verified.code, 1);
      assert.match(verified.stderr, /^The database holds 7 events, fewer than the 9 of the checkpoint: it was rolled back/);
    } finally {
      await restore(newer);
    }
  });

  it('rejects a history rebuilt from scratch with fresh hashes, at the same size and at a larger one', async () => {
    const file = join(dir, 'checkpoint-9.txt');
    const kept = readFileSync(state(), 'utf8');
    const original = await backup();
    const repository = new AuditWriteRepository(t.db);
    const rebuild = async (count: number) => {
      await t.db.deleteFrom('audit_events').execute();
      await t.db.deleteFrom('audit_tree_nodes').execute();
      await t.db.updateTable('audit_chain_head').set({ event_count: 0, last_event_id: 0, last_hash: '0'.repeat(64), last_occurred_at: null, frontier: '' }).execute();
      for (let i = 0; i < count; i++) {
        const { action, outcome, reason, actor, actor_clearance, asset_id, ip, method, path } = original.audit_events[i % original.audit_events.length] as AuditEventRow;
        const event = { action, outcome, reason, actor, actor_clearance, asset_id, ip, method, path, request_id: `rebuilt-${i}`, details: null };
        await t.db.transaction().execute((trx) => repository.appendToChain(trx, event));
      }
    };
    try {
      await rebuild(9);
      await t.db.deleteFrom('audit_checkpoint').execute();
      await signed();
      const refused = await witness();
      assert.equal(refused.code, 1);
      assert.equal(refused.stderr, 'The log has 9 events as before but another root: its history was rewritten\n');
      assert.equal(readFileSync(state(), 'utf8'), kept);
      const verified = await verifyAgainst(file);
      assert.equal(verified.code, 1);
      assert.match(verified.stderr, /^The database's first 9 events do not have the checkpoint's root: the trail was rewritten or rebuilt/);

      await rebuild(11);
      await signed();
      const longer = await witness();
      assert.equal(longer.code, 1);
      assert.match(longer.stderr, /^The consistency proof from 9 to 11 events fails: the new tree does not extend the one witnessed/);
      assert.equal(readFileSync(state(), 'utf8'), kept);
    } finally {
      await restore(original);
    }
  });

  it('rejects an edited checkpoint: its signature no longer checks', async () => {
    const kept = readFileSync(state(), 'utf8');
    const stored = await t.db.selectFrom('audit_checkpoint').selectAll().executeTakeFirstOrThrow();
    const edited = stored.note.replace(/^(.*\n)(\d+)\n/, (_all, origin: string, count: string) => `${origin}${Number(count) + 1}\n`);
    await t.db.updateTable('audit_checkpoint').set({ note: edited }).execute();
    const refused = await witness();
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^the checkpoint carries no valid signature by the key fleet-registry\.invalid\/audit\+[0-9a-f]{8}\n$/);
    assert.equal(readFileSync(state(), 'utf8'), kept);
    const file = join(dir, 'edited.txt');
    writeFileSync(file, edited);
    const verified = await verifyAgainst(file);
    assert.equal(verified.code, 1);
    assert.match(verified.stderr, /^Checkpoint .*edited\.txt: the checkpoint carries no valid signature/);
    await t.db.updateTable('audit_checkpoint').set({ note: stored.note }).execute();
  });

  it('audit:verify names a decommissioned asset whose row was edited after its event', async () => {
    await decommission(t, 'TIE-0002', t.bearer('admiral-7', 7)).expect(200);
    await t.db.updateTable('assets').set({ authorized_by: 'Someone Else' }).where('asset_id', '=', 'TIE-0002').execute();
    const result = await runScript(SCRIPTS.auditVerify, [], { cwd: dir, env: { DATABASE_URL: databaseUrl } });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^Asset TIE-0002 disagrees with its decommission event \d+ on authorized_by: its row was changed/);
    const route = await t.http().get('/v1/audit/verify').set('Authorization', t.bearer('admiral-7', 7)).expect(200);
    assert.equal(route.body.data.state, 'broken');
    assert.deepEqual(route.body.data.disagreeing_assets.map((asset: { asset_id: string; fields: string[] }) => [asset.asset_id, asset.fields]), [['TIE-0002', ['authorized_by']]]);
    await t.db.updateTable('assets').set({ authorized_by: DECOMMISSION_BODY.authorized_by }).where('asset_id', '=', 'TIE-0002').execute();
    assert.equal((await runScript(SCRIPTS.auditVerify, [], { cwd: dir, env: { DATABASE_URL: databaseUrl } })).code, 0);
  });
});

describe('npm run audit:witness usage', () => {
  it('answers --help with exit code 0 and refuses a missing option with exit code 2', async () => {
    const cwd = tmpdir();
    const help = await runScript(SCRIPTS.auditWitness, ['--help'], { cwd });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: npm run audit:witness -- --url/);
    const missing = await runScript(SCRIPTS.auditWitness, ['--url', 'http://x', '--token', 't'], { cwd });
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, '--state is required. Run npm run audit:witness -- --help for the options\n');
  });

  it('says in one line, with the URL and what to check, that the service cannot be reached: a closed port, a connection closed unanswered', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'fleet-registry-witness-down-'));
    // Reads each request and closes the connection unanswered, as a crashing service or a misrouted proxy
    // does; read first, for a close with data unread is a reset instead.
    const hangUp = createServer((socket) => socket.once('data', () => socket.end())).listen(0, '127.0.0.1');
    await once(hangUp, 'listening');
    try {
      const closed = `http://127.0.0.1:${await freePort()}`;
      const closing = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
      for (const [base, reason] of [
        [closed, 'the connection was refused'],
        [closing, 'it closed the connection without an answer'],
      ]) {
        const result = await runScript(SCRIPTS.auditWitness, ['--url', base, '--token', 't', '--state', 'witness.json'], { cwd });
        assert.deepEqual(
          { code: result.code, stdout: result.stdout, stderr: result.stderr },
          {
            code: 1,
            stdout: '',
            stderr: `Cannot reach the service at ${base}/v1/audit/checkpoint/verifier-key: ${reason}. Check --url, and that the service is up and reachable from here\n`,
          },
        );
        assert.equal(existsSync(join(cwd, 'witness.json')), false, 'no state is written');
      }
    } finally {
      hangUp.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
