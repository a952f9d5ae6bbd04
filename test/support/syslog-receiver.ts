import { once } from 'node:events';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { parseRfc5424, type Rfc5424Message, takeFrames } from './rfc5424';
import { waitUntil } from './wait';

export interface SyslogReceiverOptions {
  /** Listens with TLS (RFC 5425) with this key and certificate; plain TCP without. */
  tls?: { key: string; cert: string };
}

/**
 * A syslog collector the test runs on 127.0.0.1: it reads octet-counted frames and parses each message
 * as RFC 5424 (test/support/rfc5424.ts). What it cannot read lands in `errors`, which tests expect empty.
 * It can drop its connections, or go away and come back on the same port.
 */
export class SyslogReceiver {
  readonly messages: Rfc5424Message[] = [];
  readonly errors: string[] = [];
  /** How many connections it has accepted (TLS: completed the handshake of). */
  connections = 0;
  /** TLS: the server name each connection asked for (SNI), or null. */
  readonly servernames: (string | null)[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly options: SyslogReceiverOptions,
    public port: number,
  ) {}

  static async start(options: SyslogReceiverOptions = {}): Promise<SyslogReceiver> {
    const receiver = new SyslogReceiver(options, 0);
    await receiver.listen();
    return receiver;
  }

  /** Listens again on its port after `stop()`. */
  async listen(): Promise<void> {
    const server = this.options.tls
      ? createTlsServer(this.options.tls, (socket) => {
          this.servernames.push(socket.servername || null);
          this.read(socket);
        })
      : createTcpServer((socket) => this.read(socket));
    server.on('tlsClientError', () => undefined);
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  openConnections(): number {
    return this.sockets.size;
  }

  /** Closes every connection it holds and goes on listening. */
  async dropConnections(): Promise<void> {
    const closed = [...this.sockets].map((socket) => once(socket, 'close'));
    this.sockets.forEach((socket) => socket.destroy());
    await Promise.all(closed);
  }

  /** Stops listening and closes its connections, as a collector that went down. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      const closed = once(server, 'close');
      server.close();
      await this.dropConnections();
      await closed;
    }
  }

  async waitForMessages(count: number, timeoutMs = 10_000): Promise<Rfc5424Message[]> {
    await waitUntil(() => this.messages.length >= count || this.errors.length > 0, () => `${this.messages.length} of ${count} syslog messages came`, timeoutMs);
    return this.messages;
  }

  private read(socket: Socket): void {
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      try {
        const { messages, rest } = takeFrames(Buffer.concat([pending, chunk]));
        pending = rest;
        this.messages.push(...messages.map((message) => parseRfc5424(message)));
      } catch (error) {
        this.errors.push((error as Error).message);
        socket.destroy();
      }
    });
  }
}
