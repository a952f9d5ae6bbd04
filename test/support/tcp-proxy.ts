import { once } from 'node:events';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { Transform } from 'node:stream';

/**
 * Where a hold stops a PostgreSQL transaction's COMMIT: before it reaches the database (the transaction
 * is still open), or once the database has it, before its answer reaches the client (committed, and
 * the client does not know).
 */
export type CommitHold = 'before-commit' | 'after-commit';

/** A COMMIT as a client sends it (a simple Query message, as Kysely's pg driver sends it) and as PostgreSQL confirms it. */
const COMMIT_SENT = Buffer.from('commit\0');
const COMMIT_DONE = Buffer.from('COMMIT\0');

interface ArmedHold {
  marker: Buffer;
  stage: CommitHold;
  held: () => void;
}

/** One relayed connection, as a hold sees it. */
interface Link {
  /** The hold whose marker this connection has sent. */
  markedBy?: ArmedHold;
  commitSent: boolean;
  /** Nothing passes either way any more. */
  held: boolean;
}

export interface TcpProxyOptions {
  /** Each chunk is held this long in each direction before it is passed on, so a round trip gains twice this. */
  delayMs?: number;
}

/**
 * A loopback TCP relay the test controls, to make a database unreachable, drop its connections or
 * make it go silent, and bring it back; or, with a delay, to put the database at a distance.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private silent = false;
  private hold?: ArmedHold;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
    private readonly delayMs: number,
  ) {}

  static async start(target: { host: string; port: number }, options: TcpProxyOptions = {}): Promise<TcpProxy> {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    probe.close();
    await once(probe, 'close');
    const proxy = new TcpProxy(target, port, options.delayMs ?? 0);
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
      const link: Link = { commitSent: false, held: false };
      this.relay(client, upstream, link, true);
      this.relay(upstream, client, link, false);
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

  /** How many connections, either side, are open through the relay now. */
  get openSockets(): number {
    return this.sockets.size;
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

  /**
   * Holds the COMMIT of the PostgreSQL transaction that sends `marker` (in a statement or among its
   * parameters), on whichever connection it comes: `stage` says where. That connection then carries
   * nothing more either way, until its client closes it (and the relay closes the database's side, so
   * PostgreSQL ends what it left open). Resolves once held.
   */
  holdCommit(marker: string, stage: CommitHold): Promise<void> {
    return new Promise((held) => {
      this.hold = { marker: Buffer.from(marker), stage, held };
    });
  }

  /** Whether `chunk` passes, toward the database (`toServer`) or back; the armed hold decides on the connection it stops. */
  private passes(link: Link, toServer: boolean, chunk: Buffer): boolean {
    if (link.held) {
      return false;
    }
    const hold = this.hold;
    if (!hold) {
      return true;
    }
    if (toServer && chunk.includes(hold.marker)) {
      link.markedBy = hold;
    }
    if (link.markedBy !== hold) {
      return true;
    }
    if (toServer && chunk.includes(COMMIT_SENT)) {
      link.commitSent = true;
      return hold.stage === 'after-commit' || this.holdLink(link, hold);
    }
    return toServer || !link.commitSent || !chunk.includes(COMMIT_DONE) || this.holdLink(link, hold);
  }

  private holdLink(link: Link, hold: ArmedHold): false {
    link.held = true;
    this.hold = undefined;
    hold.held();
    return false;
  }

  /** One direction of a connection, through its hold: when one side closes, so does the other. */
  private relay(from: Socket, to: Socket, link: Link, toServer: boolean): void {
    const gate = new Transform({
      transform: (chunk: Buffer, _encoding, callback) => callback(null, this.passes(link, toServer, chunk) ? chunk : undefined),
    });
    if (this.delayMs === 0) {
      from.pipe(gate).pipe(to);
      from.on('close', () => to.destroy());
      return;
    }
    // An end reaches the other side through the pipe, after the data held before it; a reset, after the delay.
    from.pipe(gate).pipe(delayed(this.delayMs)).pipe(to);
    from.on('close', () => {
      if (!from.readableEnded) {
        setTimeout(() => to.destroy(), this.delayMs);
      }
    });
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

/**
 * Passes each chunk on `delayMs` after it arrived, in arrival order, without slowing the stream
 * otherwise: a link with that much latency and plenty of bandwidth. The end waits for the chunks held.
 */
function delayed(delayMs: number): Transform {
  const held: { due: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let ended: (() => void) | undefined;
  const release = (stream: Transform) => {
    timer = undefined;
    for (let next = held[0]; next !== undefined && next.due <= performance.now(); next = held[0]) {
      held.shift();
      stream.push(next.chunk);
    }
    if (held.length > 0) {
      // Never negative: the next chunk may come due between the loop's check and this line, and Node warns of a negative delay.
      timer = setTimeout(release, Math.max(0, held[0].due - performance.now()), stream);
    } else {
      ended?.();
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      held.push({ due: performance.now() + delayMs, chunk });
      timer ??= setTimeout(release, delayMs, this);
      callback();
    },
    flush(callback) {
      if (held.length === 0) {
        callback();
      } else {
        ended = callback;
      }
    },
  });
}
