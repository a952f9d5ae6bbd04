import { type KeyObject, sign, verify } from 'node:crypto';
import { COSIGNATURE_ED25519, keyIdOf, type NoteVerifier, parseVerifierKey, rawPublicKey, verifierKeyOf } from './checkpoint-note';

/**
 * Witness cosignatures (https://c2sp.org/tlog-cosignature, Ed25519, type 0x04): a note signature line
 * `— <witness name> base64(key id || timestamp || signature)`, the signature over `cosignature/v1`,
 * `time <timestamp>` and the checkpoint's text, the timestamp in POSIX seconds, 8 bytes big-endian.
 */

/** The witness's verifier key: `<name>+<key id>+<base64(0x04 || public key)>`. */
export const cosignerKeyOf = (name: string, key: KeyObject): string => verifierKeyOf(name, key, COSIGNATURE_ED25519);

export const parseCosignerKey = (text: string): NoteVerifier => parseVerifierKey(text, COSIGNATURE_ED25519);

const signedMessage = (body: string, time: number) => Buffer.from(`cosignature/v1\ntime ${time}\n${body}`);

/** The cosignature line of `name`'s key over the checkpoint text `body`, at `time` (POSIX seconds), with its final newline. */
export function cosign(body: string, name: string, key: KeyObject, time: number): string {
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64BE(BigInt(time));
  const keyId = keyIdOf(name, rawPublicKey(key), COSIGNATURE_ED25519);
  const signature = sign(null, signedMessage(body, time), key);
  return `\u2014 ${name} ${Buffer.concat([keyId, timestamp, signature]).toString('base64')}\n`;
}

/** The time of `line` when it is `witness`'s valid cosignature of `body`; undefined for another key's line or a bad signature. */
export function cosignatureTime(line: string, body: string, witness: NoteVerifier): number | undefined {
  const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line.trimEnd());
  const bytes = Buffer.from(match?.[2] ?? '', 'base64');
  if (match?.[1] !== witness.name || bytes.length !== 76 || !bytes.subarray(0, 4).equals(witness.keyId)) {
    return undefined;
  }
  const time = bytes.readBigUInt64BE(4);
  if (time >= 2n ** 63n) {
    return undefined;
  }
  return verify(null, signedMessage(body, Number(time)), witness.publicKey, bytes.subarray(12)) ? Number(time) : undefined;
}

/** Whether the line names the witness and its key id: its cosignature, valid or not. */
export function namesCosigner(line: string, witness: NoteVerifier): boolean {
  const match = /^\u2014 (\S+) ([A-Za-z0-9+/]+=*)$/.exec(line.trimEnd());
  return match?.[1] === witness.name && Buffer.from(match[2], 'base64').subarray(0, 4).equals(witness.keyId);
}

/** Each witness's verdict on a note: a valid cosignature, an invalid one (a line with its name and key id that fails), or none. */
export interface CosignatureCount {
  valid: NoteVerifier[];
  invalid: NoteVerifier[];
  missing: NoteVerifier[];
}

export function countCosignatures(body: string, signatures: readonly string[], witnesses: readonly NoteVerifier[]): CosignatureCount {
  const count: CosignatureCount = { valid: [], invalid: [], missing: [] };
  for (const witness of witnesses) {
    const lines = signatures.filter((line) => namesCosigner(line, witness));
    if (lines.some((line) => cosignatureTime(line, body, witness) !== undefined)) {
      count.valid.push(witness);
    } else {
      (lines.length > 0 ? count.invalid : count.missing).push(witness);
    }
  }
  return count;
}
