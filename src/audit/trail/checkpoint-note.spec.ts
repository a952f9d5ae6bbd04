import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { openCheckpoint, parseVerifierKey, signCheckpoint, verifierKeyOf } from './checkpoint-note';

const { privateKey } = generateKeyPairSync('ed25519');
const CHECKPOINT = { origin: 'registry.example.org/audit', size: 42, root: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' };
const verifier = () => parseVerifierKey(verifierKeyOf(CHECKPOINT.origin, privateKey));

describe('checkpoint notes', () => {
  it('signs the three checkpoint lines, then a blank line and one signature line, the same bytes every time', () => {
    const note = signCheckpoint(CHECKPOINT, CHECKPOINT.origin, privateKey);
    assert.match(note, /^registry\.example\.org\/audit\n42\nn4bQ.*=\n\n\u2014 registry\.example\.org\/audit [A-Za-z0-9+/]{91}=\n$/);
    assert.equal(signCheckpoint(CHECKPOINT, CHECKPOINT.origin, privateKey), note);
    assert.deepEqual(openCheckpoint(note, verifier()), CHECKPOINT);
  });

  it('refuses an edited note, another key, and text that is not a note', () => {
    const note = signCheckpoint(CHECKPOINT, CHECKPOINT.origin, privateKey);
    assert.throws(() => openCheckpoint(note.replace('\n42\n', '\n43\n'), verifier()), /no valid signature by the key registry\.example\.org\/audit\+/);
    const other = parseVerifierKey(verifierKeyOf(CHECKPOINT.origin, generateKeyPairSync('ed25519').privateKey));
    assert.throws(() => openCheckpoint(note, other), /no valid signature/);
    assert.throws(() => openCheckpoint('hello\n', verifier()), /not a signed note/);
  });

  it('reads a verifier key whose base64 holds "+", and refuses a wrong key id or key type', () => {
    const key = verifierKeyOf('a', privateKey);
    const [name, id, ...rest] = key.split('+');
    assert.equal(parseVerifierKey(key).name, 'a');
    assert.throws(() => parseVerifierKey(`${name}+00000000+${rest.join('+')}`), /does not match its name and key/);
    assert.throws(() => parseVerifierKey(`${name}+${id}+${Buffer.alloc(33, 2).toString('base64')}`), /not an Ed25519 verifier key/);
  });
});
