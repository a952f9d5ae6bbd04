import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSigner } from 'fast-jwt';
import { listFleet } from './support/http';
import { openStream, type SseFrame, type SseStream } from './support/sse';
import { listenOnLoopback, startTestApp, type TestApp } from './support/test-app';
import { type JwksServer, startJwksServer, toJwk } from './support/tokens';

const STREAM = '/v1/audit/events/stream';
/** The stream's filter: the denied requests these tests place, one event each. */
const DENIALS = 'action=auth.authenticate&outcome=denied';
const endOf = (frames: SseFrame[]) => frames.find((frame) => frame.event === 'end');
const isAuditOrEnd = (frame: SseFrame) => frame.event === 'audit' || frame.event === 'end';

/** Reads the stream until it ends or `timeoutMs` passes: every audit and end frame, in order. */
async function readToEnd(stream: SseStream, timeoutMs: number): Promise<SseFrame[]> {
  return stream.take(Number.MAX_SAFE_INTEGER, timeoutMs, isAuditOrEnd);
}

describe('an audit stream ends when its token expires', () => {
  let t: TestApp;
  let base: string;

  before(async () => {
    t = await startTestApp({ env: { JWT_CLOCK_TOLERANCE_SECONDS: '0' } });
    base = await listenOnLoopback(t);
  });
  after(() => t.close());

  it('sends event: end with reason token_expired at exp, no event placed after it, and resumes with a fresh token and Last-Event-ID', async () => {
    const shortLived = t.bearer('admiral-7', 7, '3s');
    const exp = (JSON.parse(Buffer.from(shortLived.split('.')[1], 'base64url').toString()) as { exp: number }).exp * 1000;
    const stream = await openStream(`${base}${STREAM}?${DENIALS}`, { Authorization: shortLived });
    assert.equal(stream.status, 200);
    // A denied request every 200 ms, from before exp to well past it.
    let placing = true;
    const placed = (async () => {
      for (let i = 0; placing; i++) {
        await listFleet(t, '').set('X-Request-Id', `expiry-${i}`).expect(401);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const frames = await readToEnd(stream, 10_000);
    const endedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    placing = false;
    await placed;

    assert.deepEqual(endOf(frames), { event: 'end', data: '{"reason":"token_expired"}' });
    assert.equal(frames.at(-1)?.event, 'end', 'nothing after the end');
    assert.ok(await stream.ended(1_000), 'the server closed the stream');
    assert.ok(endedAt >= exp, `ended ${exp - endedAt} ms before exp`);
    const delivered = frames.filter((frame) => frame.event === 'audit').map((frame) => JSON.parse(frame.data ?? '{}') as { id: number; occurred_at: string });
    assert.ok(delivered.length >= 5, `${delivered.length} events delivered before exp`);
    for (const event of delivered) {
      assert.ok(Date.parse(event.occurred_at) <= exp, `event ${event.id} placed at ${event.occurred_at}, after exp ${new Date(exp).toISOString()}`);
    }
    assert.equal((await listFleet(t, '', shortLived)).status, 401, 'an ordinary request with the token is refused too');

    const lastId = delivered.at(-1)!.id;
    const missed = await t.db.selectFrom('audit_events').select('id').where('action', '=', 'auth.authenticate').where('outcome', '=', 'denied').where('id', '>', lastId).orderBy('id').execute();
    assert.ok(missed.length > 0, 'events were placed after the end');
    const resumed = await openStream(`${base}${STREAM}?${DENIALS}`, { Authorization: t.bearer('admiral-7', 7), 'Last-Event-ID': String(lastId) });
    const replayed = await resumed.take(missed.length);
    resumed.close();
    assert.deepEqual(
      replayed.map((frame) => Number(frame.id)),
      missed.map((row) => row.id),
    );
  });
});

describe('an audit stream ends when the key that signed its token is withdrawn from the JWKS', () => {
  let t: TestApp;
  let base: string;
  let jwks: JwksServer;
  const [withdrawn, kept] = [generateKeyPairSync('ed25519'), generateKeyPairSync('ed25519')];
  let published = [toJwk(withdrawn.publicKey, 'withdrawn'), toJwk(kept.publicKey, 'kept')];
  const signedWith = (key: KeyObject, kid: string) =>
    `Bearer ${createSigner({ key: key.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'EdDSA', kid, expiresIn: 3_600_000 })({ sub: `officer-of-${kid}`, clearance: 7 })}`;

  before(async () => {
    jwks = await startJwksServer('serve', () => published, 'max-age=1');
    t = await startTestApp({ env: { JWT_JWKS_URL: jwks.url, JWT_JWKS_MIN_AGE_SECONDS: '1', JWT_JWKS_MAX_AGE_SECONDS: '1' } });
    base = await listenOnLoopback(t);
  });
  after(async () => {
    await t.close();
    await jwks.close();
  });

  it('sends event: end with reason token_invalid, within a keep-alive of the JWKS dropping the key, and keeps the streams of other keys', async () => {
    const [doomed, other] = [signedWith(withdrawn.privateKey, 'withdrawn'), signedWith(kept.privateKey, 'kept')];
    const doomedStream = await openStream(`${base}${STREAM}?${DENIALS}`, { Authorization: doomed });
    const otherStream = await openStream(`${base}${STREAM}?${DENIALS}`, { Authorization: other });
    assert.deepEqual([doomedStream.status, otherStream.status], [200, 200]);

    published = [toJwk(kept.publicKey, 'kept')];
    // The set is refetched past its age of 1 s; the stream checks its token with each keep-alive (15 s).
    const frames = await readToEnd(doomedStream, 20_000);
    assert.deepEqual(endOf(frames), { event: 'end', data: '{"reason":"token_invalid"}' });
    assert.ok(await doomedStream.ended(1_000));
    assert.equal((await listFleet(t, '', doomed)).status, 401);

    await listFleet(t, '').set('X-Request-Id', 'after-withdrawal').expect(401);
    const later = await otherStream.take(1, 3_000, (frame) => (JSON.parse(frame.data ?? '{}') as { request_id?: string }).request_id === 'after-withdrawal');
    otherStream.close();
    assert.equal(later.length, 1, 'the stream of the kept key goes on');
  });
});
