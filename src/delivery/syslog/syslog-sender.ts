import { once } from 'node:events';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { connect as connectTls } from 'node:tls';
import type { ShownAuditEvent } from '../../audit';
import type { SyslogTarget } from '../../config';
import type { AttemptResult, FeedSender } from '../feeds/feed-sender';
import { syslogFrame, syslogOrigin, type SyslogOrigin } from './syslog-message';

/** One connection to the receiver and the moment it is ready to write to (TLS: handshake done). */
interface Connection {
  socket: Socket;
  ready: Promise<unknown>;
}

/**
 * Sends the trail to a syslog receiver over one TCP or TLS connection (AUDIT_SYSLOG_URL), opened on the
 * first send and opened again on the send after it breaks. An event counts as delivered once its frame is
 * written to the socket: syslog over TCP has no acknowledgement, so at least once holds up to what the
 * kernel accepted, and bytes in flight when a receiver dies without closing are lost
 * (docs/operations.md#syslog).
 */
export class SyslogSender implements FeedSender {
  /** Nothing could resume it: past WEBHOOK_MAX_ATTEMPTS the feed goes on retrying, at the capped delay. */
  readonly turnsFailing = false;
  private connection?: Connection;

  constructor(
    private readonly target: SyslogTarget,
    /** An attempt (connecting, the TLS handshake and the write) that takes longer fails. */
    private readonly timeoutMs: number,
    private readonly origin: SyslogOrigin = syslogOrigin(),
  ) {}

  /** Nothing of the syslog feed changes while it runs, and it is never deleted. */
  async refresh(): Promise<boolean> {
    return true;
  }

  /** The syslog feed has no filter: every event goes. */
  takes(): boolean {
    return true;
  }

  async send(event: ShownAuditEvent, _attempt: number, signal: AbortSignal): Promise<AttemptResult> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.timeoutMs);
    const deadline = AbortSignal.any([signal, timeout.signal]);
    try {
      await untilAborted(this.write(syslogFrame(event, this.origin), deadline), deadline);
      return { delivered: true };
    } catch (error) {
      // A frame may be half written: the next attempt starts on a connection of its own.
      this.forget(this.connection?.socket);
      return { delivered: false, error: signal.aborted ? 'aborted' : timeout.signal.aborted ? `not written within ${this.timeoutMs} ms` : oneLine(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    const socket = this.connection?.socket;
    this.connection = undefined;
    socket?.end(() => socket.destroy());
  }

  private async write(frame: Buffer, deadline: AbortSignal): Promise<void> {
    // One turn of the event loop first, so that a close the receiver already sent is seen before writing into it.
    await nextTurn();
    deadline.throwIfAborted();
    const connection = this.connection ?? this.connect();
    await connection.ready;
    await writeFlushed(connection.socket, frame);
  }

  private connect(): Connection {
    const { protocol, host, port, ca } = this.target;
    const socket =
      protocol === 'tls'
        ? connectTls({ host, port, ca, servername: isIP(host) === 0 ? host : undefined, rejectUnauthorized: true })
        : connectTcp({ host, port });
    // The receiver sends nothing; reading is how its close is noticed, and the connection then forgotten.
    socket.resume();
    socket.on('end', () => this.forget(socket));
    socket.on('close', () => this.forget(socket));
    // An idle connection's failure only ends it; the failure of one in use is the pending write's answer.
    socket.on('error', () => this.forget(socket));
    socket.setKeepAlive(true);
    this.connection = { socket, ready: once(socket, protocol === 'tls' ? 'secureConnect' : 'connect') };
    return this.connection;
  }

  private forget(socket: Socket | undefined): void {
    if (socket !== undefined && this.connection?.socket === socket) {
      this.connection = undefined;
    }
    socket?.destroy();
  }
}

/** Resolves once `frame` is handed to the kernel; rejects if the connection fails or closes before. */
function writeFlushed(socket: Socket, frame: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const closed = (): void => reject(new Error('the receiver closed the connection'));
    socket.once('close', closed);
    socket.write(frame, (error) => {
      socket.off('close', closed);
      if (error) {
        reject(error);
      } else {
        resolve();
      }
    });
  });
}

/** `work`'s outcome, or an error once `signal` aborts, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** What went wrong, in one line. Connecting to a name with several addresses fails with each address's error in an AggregateError. */
export function oneLine(error: unknown): string {
  const message = error instanceof AggregateError && error.message === '' ? error.errors.map((each) => oneLine(each)).join('; ') : error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim() || 'the connection failed';
}
