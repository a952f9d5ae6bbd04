import { type Checkpoint, isSignedByAny, type NoteVerifier, NoteError, parseCheckpointBody, splitNote, verifyConsistency } from '../audit';

/**
 * The checks of a C2SP tlog-witness add-checkpoint request (https://c2sp.org/tlog-witness), in the
 * order the specification gives them, apart from the state and the network.
 */

/** A request body: `old <size>`, up to 63 consistency proof lines, a blank line, then the signed checkpoint. */
export interface AddCheckpoint {
  oldSize: number;
  proof: string[];
  note: string;
}

/** The most proof lines a client may send. */
const PROOF_LINES_MAX = 63;
const DECIMAL = /^(0|[1-9]\d{0,15})$/;
const HASH = /^[A-Za-z0-9+/]{43}=$/;

/** What the witness answers: a status and a message, 409 with the size it holds, or the checkpoint to cosign. */
export type Verdict = { status: 400 | 403 | 404 | 422; message: string } | { status: 409; size: number } | { status: 200; checkpoint: Checkpoint };

export class MalformedRequest extends Error {}

export function parseAddCheckpoint(body: string): AddCheckpoint {
  const split = body.indexOf('\n\n');
  if (split < 0) {
    throw new MalformedRequest('the body needs an old size line and proof lines, a blank line, then the checkpoint');
  }
  const [oldLine, ...proof] = body.slice(0, split).split('\n');
  const oldSize = /^old (\S+)$/.exec(oldLine)?.[1] ?? '';
  if (!DECIMAL.test(oldSize)) {
    throw new MalformedRequest('the first line must be "old" and a tree size in decimal');
  }
  if (proof.length > PROOF_LINES_MAX || proof.some((line) => !HASH.test(line))) {
    throw new MalformedRequest(`each proof line must be one SHA-256 hash in base64, ${PROOF_LINES_MAX} lines at most`);
  }
  if (Number(oldSize) === 0 && proof.length > 0) {
    throw new MalformedRequest('the proof must be empty when the old size is 0');
  }
  return { oldSize: Number(oldSize), proof, note: body.slice(split + 2) };
}

/**
 * The verdict on `request` given the keys trusted for each origin and the checkpoint last cosigned for
 * the request's origin (`held`, undefined when none was): 404 an unknown origin, 403 no valid signature
 * by a trusted key, 400 an old size above the new one, 409 an old size that is not the one held or
 * another root at the same size, 422 a consistency proof that fails.
 */
export function judge(request: AddCheckpoint, trusted: ReadonlyMap<string, readonly NoteVerifier[]>, held: Checkpoint | undefined): Verdict {
  let note: { body: string; signatures: string[] };
  let checkpoint: Checkpoint;
  try {
    note = splitNote(request.note);
    const origin = note.body.slice(0, note.body.indexOf('\n'));
    const keys = trusted.get(origin);
    if (!keys) {
      return { status: 404, message: `this witness does not witness the log ${origin}` };
    }
    if (!isSignedByAny(note.body, note.signatures, keys)) {
      return { status: 403, message: `the checkpoint carries no valid signature by a key this witness trusts for ${origin}` };
    }
    checkpoint = parseCheckpointBody(note.body);
  } catch (error) {
    if (error instanceof NoteError) {
      return { status: 400, message: error.message };
    }
    throw error;
  }
  if (request.oldSize > checkpoint.size) {
    return { status: 400, message: `old size ${request.oldSize} is above the checkpoint's size ${checkpoint.size}` };
  }
  const heldSize = held?.size ?? 0;
  if (request.oldSize !== heldSize) {
    return { status: 409, size: heldSize };
  }
  if (held && checkpoint.size === held.size) {
    if (checkpoint.root !== held.root) {
      return { status: 409, size: heldSize };
    }
    return request.proof.length === 0 ? { status: 200, checkpoint } : { status: 422, message: 'a proof between two trees of the same size is empty' };
  }
  if (held && !verifyConsistency(held.size, checkpoint.size, held.root, checkpoint.root, request.proof)) {
    return { status: 422, message: `the consistency proof from ${held.size} to ${checkpoint.size} does not verify` };
  }
  return { status: 200, checkpoint };
}
