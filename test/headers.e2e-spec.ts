import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SERVER_TIMEOUTS, serverTimeouts } from '../src/bootstrap';
import { listAssets, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

/** Response headers and socket limits do not depend on the database engine: SQLite only. */
describe('response headers and slow clients', () => {
  let t: TestApp;
  let trooper: string;

  before(async () => {
    t = await startTestApp();
    trooper = t.bearer('trooper-0', 0);
  });
  after(() => t.close());

  it("sends helmet's security headers and no X-Powered-By, on data, errors and health alike", async () => {
    for (const res of [await listFleet(t, '', trooper), await listFleet(t, ''), await t.http().get('/health/live'), await t.http().get('/nothing')]) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
      assert.match(res.headers['strict-transport-security'] ?? '', /max-age=\d+/);
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.match(res.headers['content-security-policy'] ?? '', /default-src 'self'/);
      assert.equal(res.headers['x-powered-by'], undefined);
    }
  });

  it('marks authenticated answers and refusals Cache-Control: no-store, and the revalidated fleet listing private, no-cache', async () => {
    for (const res of [await listAssets(t, '', t.bearer('admiral-7', 7)).expect(200), await listFleet(t, '').expect(401), await listFleet(t, 'limit=0', trooper).expect(400)]) {
      assert.equal(res.headers['cache-control'], 'no-store');
    }
    assert.equal((await listFleet(t, '', trooper).expect(200)).headers['cache-control'], 'private, no-cache');
  });

  it('keeps Swagger UI working under the content security policy: its page loads every asset it names from this origin', async () => {
    const page = await t.http().get('/docs').expect(200).expect('Content-Type', /html/);
    const csp = page.headers['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /style-src [^;]*'unsafe-inline'/, 'the page has inline styles');
    assert.match(csp, /img-src [^;]*data:/, 'Swagger UI draws its icons from data: URLs');
    assert.doesNotMatch(csp, /upgrade-insecure-requests/, 'plain-http deployments keep their docs');
    assert.doesNotMatch(page.text, /<script>/, 'no inline script, which the policy would block');
    const assets = [...page.text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map(([, url]) => url);
    assert.ok(assets.some((url) => url.endsWith('swagger-ui-init.js')), assets.join(', '));
    for (const url of assets) {
      assert.doesNotMatch(url, /^(https?:)?\/\//, `${url} is served from this origin`);
      await t.http().get(new URL(url, 'http://local/docs').pathname).expect(200);
    }
  });

  it('sets header, request and keep-alive timeouts on the server, the first two no longer than the shutdown grace', () => {
    const server: Server = t.app.getHttpServer();
    assert.equal(server.headersTimeout, SERVER_TIMEOUTS.headersTimeout);
    assert.equal(server.requestTimeout, t.config.shutdownGraceMs, 'the default grace, 10 s, is below the 30 s request timeout');
    assert.equal(server.keepAliveTimeout, SERVER_TIMEOUTS.keepAliveTimeout);
    assert.deepEqual(serverTimeouts(60_000), SERVER_TIMEOUTS);
    assert.deepEqual([serverTimeouts(2_000).headersTimeout, serverTimeouts(2_000).requestTimeout], [2_000, 2_000]);
  });

  it('closes the socket of a client that drips its headers (408) and of an idle keep-alive client', async () => {
    const server: Server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const closedAfter = (start: (socket: Socket) => void) =>
      new Promise<number>((resolve) => {
        const began = Date.now();
        const socket = connect(port, '127.0.0.1', () => start(socket));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(Date.now() - began));
        // Read what the server sends, or the client never sees the socket end.
        socket.resume();
      });
    const [slowHeaders, idle] = await Promise.all([
      closedAfter((socket) => {
        socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
        const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 500);
        socket.on('close', () => clearInterval(drip));
      }),
      closedAfter((socket) => socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n')),
    ]);
    const slack = SERVER_TIMEOUTS.connectionsCheckingInterval + 3_000;
    assert.ok(slowHeaders >= SERVER_TIMEOUTS.headersTimeout && slowHeaders < SERVER_TIMEOUTS.headersTimeout + slack, `slow headers closed after ${slowHeaders} ms`);
    assert.ok(idle >= SERVER_TIMEOUTS.keepAliveTimeout && idle < SERVER_TIMEOUTS.keepAliveTimeout + slack, `idle socket closed after ${idle} ms`);
  });
});
