import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/**
 * C2SP signed notes (https://c2sp.org/signed-note) holding a tlog-checkpoint
 * (https://c2sp.org/tlog-checkpoint), signed with Ed25519 (signature type 0x01).
 */

/** What a checkpoint says: the log, the tree's size and its root (standard base64). */
export interface Checkpoint {
  origin: string;
  size: number;
  root: string;
}

/** A key that checks notes: its name, 4-byte id and public key. */
export interface NoteVerifier {
  name: string;
  keyId: Buffer;
  publicKey: KeyObject;
}

/** The signature types of a verifier key: a log's Ed25519 note signature, a witness's Ed25519 cosignature (c2sp.org/tlog-cosignature). */
export const ED25519 = 0x01;
export const COSIGNATURE_ED25519 = 0x04;
/** A key name or origin: printable, no spaces and no "+" (the verifier key's separator). */
const KEY_NAME = /^[\x21-\x2a\x2c-\x7e]+$/;

export class NoteError extends Error {}

export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x as string, 'base64url');
}

/** The first 4 bytes of SHA-256(key name || 0x0A || signature type || public key). */
export function keyIdOf(name: string, raw: Buffer, type = ED25519): Buffer {
  return createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([type]), raw]))
    .digest()
    .subarray(0, 4);
}

/** `<name>+<key id, 8 hex digits>+<base64(type || public key)>`. */
export function verifierKeyOf(name: string, key: KeyObject, type = ED25519): string {
  const raw = rawPublicKey(key);
  return `${name}+${keyIdOf(name, raw, type).toString('hex')}+${Buffer.concat([Buffer.from([type]), raw]).toString('base64')}`;
}

/** A verifier key of signature `type` (a log's 0x01 by default). */
export function parseVerifierKey(text: string, type = ED25519): NoteVerifier {
  // The key's base64 may hold "+" too: the name and the id are the first two fields.
  const [name, id, ...keyParts] = text.trim().split('+');
  const key = keyParts.join('+');
  const bytes = Buffer.from(key, 'base64');
  if (!KEY_NAME.test(name) || !/^[0-9a-f]{8}$/.test(id ?? '') || !/^[A-Za-z0-9+/]{44}$/.test(key) || bytes.length !== 33 || bytes[0] !== type) {
    const hex = `0x${type.toString(16).padStart(2, '0')}`;
    throw new NoteError(`not an Ed25519 ${type === ED25519 ? '' : 'cosignature '}verifier key of the form <name>+<8 hex digits>+<base64 of ${hex} and the 32-byte key>`);
  }
  const raw = bytes.subarray(1);
  if (!keyIdOf(name, raw, type).equals(Buffer.from(id, 'hex'))) {
    throw new NoteError(`the verifier key's id ${id} does not match its name and key`);
  }
  return { name, keyId: Buffer.from(id, 'hex'), publicKey: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }) };
}

/** The checkpoint as a note signed by `name`'s key; the same checkpoint and key give the same bytes (Ed25519 is deterministic). */
export function signCheckpoint({ origin, size, root }: Checkpoint, name: string, key: KeyObject): string {
  const body = `${origin}\n${size}\n${root}\n`;
  const signature = Buffer.concat([keyIdOf(name, rawPublicKey(key)), sign(null, Buffer.from(body), key)]);
  return `${body}\n\u2014 ${name} ${signature.toString('base64')}\n`;
}

/** A note's text (with its final newline) and its signature lines (without theirs). */
export function splitNote(note: string): { body: string; signatures: string[] } {
  const split = note.indexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) {
    throw new NoteError('not a signed note: no blank line between the text and its signatures, or no final newline');
  }
  return { body: note.slice(0, split + 1), signatures: note.slice(split + 2, -1).split('\n') };
}

/** Whether `line` is the note signature of `body` by `verifier`: its name, its key id and an Ed25519 signature of the text. */
function signatureVerifies(line: string, body: string, verifier: NoteVerifier): boolean {
  const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
  const bytes = Buffer.from(match?.[2] ?? '', 'base64');
  return match?.[1] === verifier.name && bytes.length === 68 && bytes.subarray(0, 4).equals(verifier.keyId) && verify(null, Buffer.from(body), verifier.publicKey, bytes.subarray(4));
}

/** Whether one of the signature lines is a valid signature of `body` by one of `verifiers`. */
export function isSignedByAny(body: string, signatures: readonly string[], verifiers: readonly NoteVerifier[]): boolean {
  return signatures.some((line) => verifiers.some((verifier) => signatureVerifies(line, body, verifier)));
}

/** The checkpoint of a note that `verifier` signed; a NoteError saying what is wrong otherwise. */
export function openCheckpoint(note: string, verifier: NoteVerifier): Checkpoint {
  return openCheckpointSignedByAny(note, [verifier]);
}

/** The checkpoint of a note that one of `verifiers` signed (signatures by other keys are ignored). */
export function openCheckpointSignedByAny(note: string, verifiers: readonly NoteVerifier[]): Checkpoint {
  const { body, signatures } = splitNote(note);
  if (!isSignedByAny(body, signatures, verifiers)) {
    const keys = verifiers.map((verifier) => `${verifier.name}+${verifier.keyId.toString('hex')}`).join(' or ');
    throw new NoteError(`the checkpoint carries no valid signature by the key ${keys}`);
  }
  return parseCheckpointBody(body);
}

/** The checkpoint lines of a note's text; a NoteError when they are not origin, size and root. */
export function parseCheckpointBody(body: string): Checkpoint {
  const [origin, size, root, ...extensions] = body.slice(0, -1).split('\n');
  if (!/^(0|[1-9]\d{0,15})$/.test(size ?? '') || !/^[A-Za-z0-9+/]{43}=$/.test(root ?? '') || origin === '' || extensions.some((line) => line === '')) {
    throw new NoteError('the signed note is not a checkpoint: origin, tree size in decimal, root hash in base64');
  }
  return { origin, size: Number(size), root };
}
