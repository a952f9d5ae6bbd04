import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { cosign, cosignatureTime, cosignerKeyOf, countCosignatures, parseCosignerKey } from './cosignature';
import { parseVerifierKey } from './checkpoint-note';

const BODY = 'registry.example.org/audit\n42\nn4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=\n';
const NAME = 'witness.example.org/w1';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

describe('witness cosignatures (tlog-cosignature, Ed25519)', () => {
  it('has a type 0x04 verifier key whose id hashes the name, 0x04 and the key', () => {
    const vkey = cosignerKeyOf(NAME, privateKey);
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
    const [name, id, ...key] = vkey.split('+');
    assert.equal(name, NAME);
    assert.deepEqual(Buffer.from(key.join('+'), 'base64'), Buffer.concat([Buffer.from([4]), raw]));
    assert.equal(id, createHash('sha256').update(Buffer.concat([Buffer.from(`${NAME}\n`), Buffer.from([4]), raw])).digest('hex').slice(0, 8));
    assert.equal(parseCosignerKey(vkey).name, NAME);
    assert.throws(() => parseVerifierKey(vkey), /not an Ed25519 verifier key/);
  });

  it('signs cosignature/v1, the time line and the checkpoint text, with the key id and the time big-endian before the signature', () => {
    const line = cosign(BODY, NAME, privateKey, 1_679_315_147);
    const bytes = Buffer.from(line.trimEnd().split(' ')[2], 'base64');
    assert.equal(bytes.length, 76);
    assert.equal(bytes.readBigUInt64BE(4), 1_679_315_147n);
    assert.ok(verify(null, Buffer.from(`cosignature/v1\ntime 1679315147\n${BODY}`), publicKey, bytes.subarray(12)));
    assert.equal(cosignatureTime(line, BODY, parseCosignerKey(cosignerKeyOf(NAME, privateKey))), 1_679_315_147);
    assert.equal(cosignatureTime(line, BODY.replace('42', '43'), parseCosignerKey(cosignerKeyOf(NAME, privateKey))), undefined);
  });

  it('counts valid, invalid and missing cosignatures of the witnesses given', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const absent = generateKeyPairSync('ed25519').privateKey;
    const [w1, w2, w3] = [cosignerKeyOf(NAME, privateKey), cosignerKeyOf('w2', other), cosignerKeyOf('w3', absent)].map(parseCosignerKey);
    const forged = cosign(BODY.replace('42', '41'), 'w2', other, 5).trimEnd();
    const count = countCosignatures(BODY, [cosign(BODY, NAME, privateKey, 5).trimEnd(), forged], [w1, w2, w3]);
    assert.deepEqual([count.valid, count.invalid, count.missing], [[w1], [w2], [w3]]);
  });
});
