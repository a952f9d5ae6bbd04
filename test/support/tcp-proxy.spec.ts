import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TcpProxy } from './tcp-proxy';

const DELAY_MS = 20;

/** Reads from the socket until `bytes` have arrived. */
async function read(socket: Socket, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  while (received < bytes) {
    const [chunk] = (await once(socket, 'data')) as [Buffer];
    chunks.push(chunk);
    received += chunk.length;
  }
  return Buffer.concat(chunks);
}

describe('TcpProxy with a delay', () => {
  let echo: Server;
  let proxy: TcpProxy;

  before(async () => {
    echo = createServer((socket) => socket.pipe(socket)).listen(0, '127.0.0.1');
    await once(echo, 'listening');
    const { port } = echo.address() as { port: number };
    proxy = await TcpProxy.start({ host: '127.0.0.1', port }, { delayMs: DELAY_MS });
  });
  after(async () => {
    await proxy.cut();
    echo.close();
  });

  it('holds a round trip for the delay each way, and keeps the bytes in order', async () => {
    const client = connect(proxy.port, '127.0.0.1');
    await once(client, 'connect');
    const sent = Buffer.from(Array.from({ length: 200 }, (_, index) => `chunk ${index};`).join(''));
    const start = performance.now();
    for (let offset = 0; offset < sent.length; offset += 64) {
      client.write(sent.subarray(offset, offset + 64));
    }
    const echoed = await read(client, sent.length);
    const elapsed = performance.now() - start;
    client.destroy();
    assert.equal(echoed.toString(), sent.toString());
    assert.ok(elapsed >= 2 * DELAY_MS - 1, `round trip of ${elapsed.toFixed(1)} ms, expected at least ${2 * DELAY_MS} ms`);
  });

  it('passes on what a side sent before it closed', async () => {
    const received: Buffer[] = [];
    const collector = createServer((socket) => socket.on('data', (chunk: Buffer) => received.push(chunk))).listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const closed = once(collector, 'connection').then(([socket]) => once(socket as Socket, 'close'));
    const relay = await TcpProxy.start({ host: '127.0.0.1', port: (collector.address() as { port: number }).port }, { delayMs: DELAY_MS });
    const client = connect(relay.port, '127.0.0.1');
    await once(client, 'connect');
    client.end('last words');
    await closed;
    await relay.cut();
    collector.close();
    assert.equal(Buffer.concat(received).toString(), 'last words');
  });
});
