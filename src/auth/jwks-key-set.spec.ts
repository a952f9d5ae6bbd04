import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { cacheLifetime, JwksKeySet, parseJwks } from './jwks-key-set';
import { type JwksServer, startJwksServer, toJwk } from '../../test/support/tokens';

const ed = generateKeyPairSync('ed25519').publicKey;
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
/** The defaults: max-age bounded to 60 s .. 10 min, a stale set served 5 min more. */
const AGES = { minAgeMs: 60_000, maxAgeMs: 600_000, staleMs: 300_000 };

describe('cacheLifetime', () => {
  const cases: [string | null, number][] = [
    ['max-age=120', 120_000],
    ['public, max-age=5', 60_000],
    ['max-age=86400, must-revalidate', 600_000],
    ['MAX-AGE="90"', 90_000],
    ['no-store', 60_000],
    ['no-cache, max-age=300', 60_000],
    ['max-age=0', 60_000],
    ['max-age=soon', 600_000],
    [null, 600_000],
  ];
  for (const [header, ms] of cases) {
    it(`keeps an answer with Cache-Control ${JSON.stringify(header)} for ${ms / 1000} s`, () => {
      assert.equal(cacheLifetime(header, 60_000, 600_000), ms);
    });
  }
});

describe('parseJwks', () => {
  it('keeps RSA, P-256 and Ed25519 signing keys by kid, each with its one algorithm', () => {
    const keys = parseJwks({ keys: [toJwk(rsa, 'r'), toJwk(ec, 'e'), toJwk(ed, 'd')] });

    assert.deepEqual([...keys].map(([kid, key]) => [kid, key.alg]), [['r', 'RS256'], ['e', 'ES256'], ['d', 'EdDSA']]);
  });

  it('skips keys without a kid, for encryption, of another type, with a contradicting alg, or broken', () => {
    const noKid: Record<string, unknown> = toJwk(ed, 'x');
    delete noKid.kid;
    const keys = parseJwks({
      keys: [
        noKid,
        { ...toJwk(ed, 'enc'), use: 'enc' },
        { kty: 'oct', k: 'c2VjcmV0', kid: 'oct' },
        { ...toJwk(rsa, 'hs'), alg: 'HS256' },
        { kty: 'OKP', crv: 'Ed25519', x: '!!', kid: 'broken' },
        42,
        toJwk(ed, 'good'),
      ],
    });

    assert.deepEqual([...keys.keys()], ['good']);
  });

  for (const document of [null, 'keys', [], {}, { keys: 'x' }]) {
    it(`refuses ${JSON.stringify(document)} as a JWKS document`, () => {
      assert.throws(() => parseJwks(document), TypeError);
    });
  }
});

describe('JwksKeySet against a real HTTP server', () => {
  const servers: JwksServer[] = [];
  const start = async (...args: Parameters<typeof startJwksServer>) => {
    const server = await startJwksServer(...args);
    servers.push(server);
    return server;
  };
  after(() => Promise.all(servers.map((server) => server.close())));

  it('fetches once, serves known kids from the cache, and shares one fetch between concurrent lookups', async () => {
    const server = await start('serve', () => [toJwk(ed, 'k1')]);
    const sut = new JwksKeySet({ url: server.url, timeoutMs: 1_000, refreshMs: 60_000, ...AGES });

    const found = await Promise.all(Array.from({ length: 20 }, () => sut.find('k1')));
    await sut.find('k1');

    assert.ok(found.every((key) => key?.alg === 'EdDSA'));
    assert.equal(server.requests(), 1);
  });

  it('refetches on an unknown kid at most once per refresh interval', async () => {
    let published = [toJwk(ed, 'k1')];
    const server = await start('serve', () => published);
    const sut = new JwksKeySet({ url: server.url, timeoutMs: 1_000, refreshMs: 300, ...AGES });
    await sut.find('k1');

    published = [toJwk(ed, 'k1'), toJwk(ec, 'k2')];
    assert.equal(await sut.find('k2'), undefined, 'within the interval the new key is not fetched');
    assert.equal(await sut.find('nobody'), undefined);
    assert.equal(server.requests(), 1);

    await new Promise((resolve) => setTimeout(resolve, 350));
    assert.equal((await sut.find('k2'))?.alg, 'ES256');
    for (let i = 0; i < 10; i++) {
      assert.equal(await sut.find(`unknown-${i}`), undefined);
    }
    assert.equal(server.requests(), 2);
  });

  it('times its intervals by the monotonic clock: a step of the wall clock neither refetches nor keeps a withdrawn key', async (t) => {
    let published = [toJwk(ed, 'k1')];
    const server = await start('serve', () => published, 'public, max-age=1');
    const sut = new JwksKeySet({ url: server.url, timeoutMs: 1_000, refreshMs: 300, minAgeMs: 1_000, maxAgeMs: 600_000, staleMs: 300_000 });
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    assert.equal((await sut.find('k1'))?.alg, 'EdDSA');

    // The wall clock jumps an hour ahead (a VM resumed, NTP stepped it): no refetch within the interval.
    t.mock.timers.setTime(Date.now() + 3_600_000);
    assert.equal(await sut.find('unknown'), undefined);
    assert.equal(server.requests(), 1);

    // Then a day back: the key withdrawn is still refused once the answer's max-age has passed.
    t.mock.timers.setTime(Date.now() - 86_400_000);
    published = [];
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.equal(await sut.find('k1'), undefined);
    assert.equal(server.requests(), 2);
  });

  it('answers within the timeout when the server hangs, and does not ask again within the interval', async () => {
    const server = await start('hang');
    const sut = new JwksKeySet({ url: server.url, timeoutMs: 300, refreshMs: 60_000, ...AGES });

    const started = Date.now();
    const found = await Promise.all(Array.from({ length: 5 }, () => sut.find('k1')));
    const waited = Date.now() - started;
    const again = Date.now();
    await sut.find('k1');

    assert.deepEqual(found, [undefined, undefined, undefined, undefined, undefined]);
    assert.ok(waited >= 250 && waited < 1_500, `waited ${waited} ms`);
    assert.ok(Date.now() - again < 50, 'the next lookup does not wait again');
    assert.equal(server.requests(), 1);
  });

  it('finds nothing, and throws nothing, when the server answers garbage or is not there', async () => {
    const garbage = await start('garbage');
    assert.equal(await new JwksKeySet({ url: garbage.url, timeoutMs: 1_000, refreshMs: 60_000, ...AGES }).find('k1'), undefined);
    assert.equal(await new JwksKeySet({ url: 'http://127.0.0.1:1/jwks', timeoutMs: 1_000, refreshMs: 60_000, ...AGES }).find('k1'), undefined);
  });

  it('refuses a key removed from the JWKS once the max-age of the answer has passed (target: within max-age + 5 s)', async () => {
    let published = [toJwk(ed, 'old'), toJwk(ec, 'new')];
    const server = await start('serve', () => published, 'public, max-age=1');
    const sut = new JwksKeySet({ url: server.url, timeoutMs: 1_000, refreshMs: 30_000, minAgeMs: 1_000, maxAgeMs: 600_000, staleMs: 300_000 });
    assert.equal((await sut.find('old'))?.alg, 'EdDSA');

    published = [toJwk(ec, 'new')];
    const removed = Date.now();
    let refusedAfterMs: number | undefined;
    for (let i = 0; i < 80 && refusedAfterMs === undefined; i++) {
      if ((await sut.find('old')) === undefined) {
        refusedAfterMs = Date.now() - removed;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    console.log(`# target: a key removed from the JWKS (max-age 1 s) was refused ${refusedAfterMs ?? 'never'} ms after its removal (bound: 6000 ms)`);
    assert.ok(refusedAfterMs !== undefined && refusedAfterMs <= 6_000, `refused after ${refusedAfterMs} ms`);
    assert.equal((await sut.find('new'))?.alg, 'ES256');
    assert.equal(sut.health(), 'fresh');
  });

  it('serves the last good set while the provider is down, says it is stale, and stops once that is too old', async () => {
    let published: ReturnType<typeof toJwk>[] | undefined = [toJwk(ed, 'k1')];
    const server = await start('serve', () => published, 'max-age=1');
    const sut = new JwksKeySet({ url: server.url, timeoutMs: 1_000, refreshMs: 30_000, minAgeMs: 1_000, maxAgeMs: 1_000, staleMs: 1_000 });
    await sut.find('k1');
    published = undefined;

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.equal((await sut.find('k1'))?.alg, 'EdDSA', 'the provider answers 503: the last good set serves');
    assert.equal(sut.health(), 'stale');
    assert.equal(server.requests(), 2);

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(await sut.find('k1'), undefined, 'past max-age + stale time, no key is trusted');
    assert.equal(sut.health(), 'unavailable');

    published = [toJwk(ed, 'k1')];
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal((await sut.find('k1'))?.alg, 'EdDSA', 'the provider is back: its keys serve again');
    assert.equal(sut.health(), 'fresh');
  });
});
