/**
 * Checks a checkpoint as GET /v1/audit/checkpoint serves it, from keys alone, with Web Crypto (Node and
 * browsers): the log's signature (C2SP signed-note, Ed25519, key type 0x01) and at least `quorum` valid
 * witness cosignatures (C2SP tlog-cosignature, Ed25519, key type 0x04) from the witnesses given.
 */

export interface VerifiedCheckpoint {
  origin: string;
  size: number;
  /** The root hash, base64. */
  root: string;
  /** The witnesses (by name) whose valid cosignature it carries, each with its time (POSIX seconds). */
  cosignedBy: { name: string; time: number }[];
}

export interface CheckpointKeys {
  /** The log's verifier key, as GET /v1/audit/checkpoint/verifier-key serves it. */
  logKey: string;
  /** The witnesses' verifier keys (type 0x04), as AUDIT_WITNESSES names them. */
  witnessKeys?: string[];
  /** How many of them must have cosigned; all of them by default. */
  quorum?: number;
}

export class CheckpointVerificationError extends Error {}

interface Key {
  name: string;
  id: Uint8Array;
  publicKey: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
}

const encoder = new TextEncoder();
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);
const concat = (...parts: Uint8Array[]) => {
  const all = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  parts.reduce((at, part) => (all.set(part, at), at + part.length), 0);
  return all;
};

async function readKey(text: string, type: number): Promise<Key> {
  const [name, id, ...rest] = text.trim().split('+');
  const bytes = fromBase64(rest.join('+'));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', concat(encoder.encode(`${name}\n`), bytes)));
  if (bytes.length !== 33 || bytes[0] !== type || !/^[0-9a-f]{8}$/.test(id ?? '') || !equal(digest.subarray(0, 4), Uint8Array.from(id.match(/../g) ?? [], (hex) => parseInt(hex, 16)))) {
    throw new CheckpointVerificationError(`not a verifier key of type 0x0${type}: ${text}`);
  }
  return { name, id: digest.subarray(0, 4), publicKey: await crypto.subtle.importKey('raw', bytes.subarray(1), { name: 'Ed25519' }, false, ['verify']) };
}

/** The signature bytes of `line` when it names `key` and its id, after the id; undefined otherwise. */
function signatureBy(line: string, key: Key): Uint8Array | undefined {
  const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line);
  const bytes = match?.[1] === key.name ? fromBase64(match[2]) : undefined;
  return bytes && equal(bytes.subarray(0, 4), key.id) ? bytes.subarray(4) : undefined;
}

const verifies = (key: Key, signature: Uint8Array, message: Uint8Array) => crypto.subtle.verify({ name: 'Ed25519' }, key.publicKey, signature, message);

/** The time of `key`'s valid cosignature of `body` among `lines`; undefined when none is valid; null when it has none at all. */
async function cosignatureTime(lines: string[], body: string, key: Key): Promise<number | null | undefined> {
  const candidates = lines.map((line) => signatureBy(line, key)).filter((bytes) => bytes !== undefined);
  for (const bytes of candidates) {
    if (bytes.length === 72) {
      const time = new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0);
      if (await verifies(key, bytes.subarray(8), encoder.encode(`cosignature/v1\ntime ${time}\n${body}`))) {
        return Number(time);
      }
    }
  }
  return candidates.length === 0 ? null : undefined;
}

/** The checkpoint when all holds; a CheckpointVerificationError saying what does not, naming the witnesses missing or invalid. */
export async function verifyCheckpoint(note: string, { logKey, witnessKeys = [], quorum = witnessKeys.length }: CheckpointKeys): Promise<VerifiedCheckpoint> {
  const split = note.indexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) {
    throw new CheckpointVerificationError('not a signed note');
  }
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  const log = await readKey(logKey, 0x01);
  const logSigned = await Promise.all(
    lines.map(async (line) => {
      const bytes = signatureBy(line, log);
      return bytes !== undefined && bytes.length === 64 && (await verifies(log, bytes, encoder.encode(body)));
    }),
  );
  if (!logSigned.includes(true)) {
    throw new CheckpointVerificationError(`no valid signature by the log key ${log.name}`);
  }
  const [origin, size, root] = body.slice(0, -1).split('\n');
  if (!/^(0|[1-9]\d*)$/.test(size ?? '') || !/^[A-Za-z0-9+/]{43}=$/.test(root ?? '')) {
    throw new CheckpointVerificationError('the note is not a checkpoint');
  }
  const witnesses = await Promise.all(witnessKeys.map((key) => readKey(key, 0x04)));
  const times = await Promise.all(witnesses.map((witness) => cosignatureTime(lines, body, witness)));
  const cosignedBy = witnesses.flatMap((witness, i) => (typeof times[i] === 'number' ? [{ name: witness.name, time: times[i] }] : []));
  if (cosignedBy.length < quorum) {
    const invalid = witnesses.filter((_, i) => times[i] === undefined).map(({ name }) => name);
    const missing = witnesses.filter((_, i) => times[i] === null).map(({ name }) => name);
    const problems = [invalid.length > 0 ? `invalid from ${invalid.join(', ')}` : '', missing.length > 0 ? `missing from ${missing.join(', ')}` : ''].filter(Boolean);
    throw new CheckpointVerificationError(`${cosignedBy.length} valid witness cosignatures of the ${quorum} required: ${problems.join('; ')}`);
  }
  return { origin, size: Number(size), root, cosignedBy };
}
