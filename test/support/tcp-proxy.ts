import { once } from 'node:events';
import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A loopback TCP relay the test controls, to make a database unreachable, drop its connections or
 * make it go silent, and bring it back.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private silent = false;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    probe.close();
    await once(probe, 'close');
    const proxy = new TcpProxy(target, port);
    await proxy.restore();
    return proxy;
  }

  /** Relays new connections again, after a cut or a blackhole. Connections that went silent stay silent. */
  async restore(): Promise<void> {
    this.silent = false;
    if (this.server) {
      return;
    }
    this.server = createServer((client) => {
      this.track(client);
      if (this.silent) {
        swallow(client);
        return;
      }
      const upstream = this.track(connect(this.target.port, this.target.host));
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  /** Refuses new connections and drops the open ones, as a database that went away would. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.reset();
    if (server) {
      server.close();
      await once(server, 'close');
    }
  }

  /** Drops the open connections, as a network fault would, and goes on relaying new ones. Returns how many it dropped. */
  reset(): number {
    const dropped = this.sockets.size;
    for (const socket of this.sockets) {
      socket.destroy();
    }
    return dropped;
  }

  /**
   * Keeps every connection open and accepts new ones, but forwards nothing either way: a database
   * behind a network that silently drops packets. The open connections never carry data again, as
   * after a firewall or NAT that lost its state.
   */
  blackhole(): void {
    this.silent = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      swallow(socket);
    }
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    return socket;
  }
}

/** Reads and discards whatever arrives, so the sender sees its bytes accepted and never an answer. */
function swallow(socket: Socket): void {
  socket.on('data', () => undefined);
  socket.resume();
}
