import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { type Checkpoint, parseVerifierKey, verifierKeyOf } from '../audit';
import { judge, parseAddCheckpoint } from './witness-protocol';

const ORIGIN = 'registry.example.org/audit';
const { privateKey: logKey } = generateKeyPairSync('ed25519');
const trusted = new Map([[ORIGIN, [parseVerifierKey(verifierKeyOf(ORIGIN, logKey))]]]);

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();
const EMPTY_ROOT = sha256().toString('base64');
const leafHash = (text: string) => sha256(Buffer.from([0]), Buffer.from(text)).toString('base64');
const nodeHash = (left: string, right: string) => sha256(Buffer.from([1]), Buffer.from(left, 'base64'), Buffer.from(right, 'base64')).toString('base64');

/** A signed note (c2sp.org/signed-note) of the checkpoint by `key`, named `name`. */
function signCheckpoint({ origin, size, root }: Checkpoint, name: string, key: KeyObject): string {
  const body = `${origin}\n${size}\n${root}\n`;
  const raw = Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
  const keyId = sha256(Buffer.from(`${name}\n`), Buffer.from([1]), raw).subarray(0, 4);
  return `${body}\n\u2014 ${name} ${Buffer.concat([keyId, sign(null, Buffer.from(body), key)]).toString('base64')}\n`;
}

const split = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);

/** RFC 9162 MTH, from its definition. */
const mth = (leaves: string[]): string =>
  leaves.length === 0 ? EMPTY_ROOT : leaves.length === 1 ? leaves[0] : nodeHash(mth(leaves.slice(0, split(leaves.length))), mth(leaves.slice(split(leaves.length))));

/** RFC 9162 SUBPROOF(m, D[n], b), from its definition. */
function subproof(m: number, leaves: string[], whole: boolean): string[] {
  if (m === leaves.length) {
    return whole ? [] : [mth(leaves)];
  }
  const k = split(leaves.length);
  return m <= k ? [...subproof(m, leaves.slice(0, k), whole), mth(leaves.slice(k))] : [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}

const consistencyProofOf = (leaves: string[], first: number) => subproof(first, leaves, true);

/** The checkpoint of a tree of `size` leaves named `${prefix}${i}`. */
function tree(size: number, prefix = 'event ') {
  const leaves = Array.from({ length: size }, (_, i) => leafHash(`${prefix}${i}`));
  return { checkpoint: { origin: ORIGIN, size, root: mth(leaves) }, leaves };
}

const note = (size: number, prefix?: string, key = logKey) => signCheckpoint(tree(size, prefix).checkpoint, ORIGIN, key);
const body = (old: number, proof: string[], signed: string) => `old ${old}\n${proof.map((line) => `${line}\n`).join('')}\n${signed}`;

describe('the tlog-witness add-checkpoint checks', () => {
  it('parses the old size, the proof lines and the checkpoint, and refuses a malformed body', () => {
    const parsed = parseAddCheckpoint(body(3, [tree(1).leaves[0]], note(5)));
    assert.equal(parsed.oldSize, 3);
    assert.deepEqual(parsed.proof, [tree(1).leaves[0]]);
    assert.equal(parsed.note, note(5));
    assert.throws(() => parseAddCheckpoint(`old 03\n\n${note(5)}`), /"old" and a tree size/);
    assert.throws(() => parseAddCheckpoint(`old 3\nnot a hash\n\n${note(5)}`), /one SHA-256 hash/);
    assert.throws(() => parseAddCheckpoint(note(5).replace('\n\n', '\n')), /blank line/);
    assert.throws(() => parseAddCheckpoint(body(0, [tree(1).leaves[0]], note(5))), /empty when the old size is 0/);
  });

  it('cosigns the first checkpoint of a log at old size 0, and one that extends the held one by a valid proof', () => {
    assert.deepEqual(judge(parseAddCheckpoint(body(0, [], note(5))), trusted, undefined), { status: 200, checkpoint: tree(5).checkpoint });
    const proof = consistencyProofOf(tree(9).leaves, 5);
    assert.deepEqual(judge(parseAddCheckpoint(body(5, proof, note(9))), trusted, tree(5).checkpoint), { status: 200, checkpoint: tree(9).checkpoint });
    assert.deepEqual(judge(parseAddCheckpoint(body(5, [], note(5))), trusted, tree(5).checkpoint), { status: 200, checkpoint: tree(5).checkpoint });
  });

  it('answers 404 for an unknown origin and 403 without a trusted signature', () => {
    const other = signCheckpoint({ ...tree(5).checkpoint, origin: 'other.example/log' }, 'other.example/log', logKey);
    assert.equal(judge(parseAddCheckpoint(body(0, [], other)), trusted, undefined).status, 404);
    const untrusted = note(5, undefined, generateKeyPairSync('ed25519').privateKey);
    assert.equal(judge(parseAddCheckpoint(body(0, [], untrusted)), trusted, undefined).status, 403);
  });

  it('answers 400 for an old size above the checkpoint, 409 with the held size for a stale one or a fork at the same size, 422 for a failed proof', () => {
    assert.equal(judge(parseAddCheckpoint(body(7, [tree(1).leaves[0]], note(5))), trusted, undefined).status, 400);
    assert.deepEqual(judge(parseAddCheckpoint(body(0, [], note(9))), trusted, tree(5).checkpoint), { status: 409, size: 5 });
    assert.deepEqual(judge(parseAddCheckpoint(body(5, [], note(5, 'forked '))), trusted, tree(5).checkpoint), { status: 409, size: 5 });
    const forkedProof = consistencyProofOf(tree(9, 'forked ').leaves, 5);
    assert.equal(judge(parseAddCheckpoint(body(5, forkedProof, note(9, 'forked '))), trusted, tree(5).checkpoint).status, 422);
    assert.deepEqual(judge(parseAddCheckpoint(body(5, [], note(3))), trusted, tree(5).checkpoint), { status: 400, message: "old size 5 is above the checkpoint's size 3" });
  });
});
