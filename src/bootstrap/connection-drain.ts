import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';
import { ShutdownState } from './graceful-shutdown';

/** A request body still arriving this long after its headers, once the server stops accepting, is cut: a body of 16 KB at most takes a live client far less. */
const STALLED_BODY_MS = 1_000;

/**
 * A keep-alive client that keeps sending would hold the server open through a shutdown, as Node only
 * closes idle connections. Once shutdown starts (the SIGTERM, before SHUTDOWN_DELAY_MS), every response
 * closes its connection instead, so clients move to another instance and the server stops when the
 * requests in flight have their answers. A request read before that keeps its connection alive, so
 * idle connections are closed again until the server has closed. A request whose body is still
 * arriving has no handler running yet and could hold the drain until the request timeout: its
 * connection is closed once the body has taken STALLED_BODY_MS.
 */
@Injectable()
export class ConnectionDrain implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  /**
   * Each connection that has carried a request, with its latest response, until it closes. Kept per
   * connection, not per request: a Set of the requests in flight grew and shrank its table on every
   * request, and each new table outlived a young collection, filling the old generation until a major
   * collection paused the server.
   */
  private readonly latestResponses = new Map<Socket, ServerResponse>();
  /** When each connection's latest request had its headers read (performance.now()), by the same keys. */
  private readonly latestRequestTimes = new Map<Socket, number>();

  constructor(
    private readonly adapterHost: HttpAdapterHost<AbstractHttpAdapter<Server>>,
    private readonly shutdown: ShutdownState,
  ) {}

  onApplicationBootstrap(): void {
    // Before Express's listener, which may have answered by the time a later listener runs.
    this.server().prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      if (this.shutdown.isShuttingDown) {
        response.setHeader('Connection', 'close');
      }
      const { socket } = request;
      if (!this.latestResponses.has(socket)) {
        socket.once('close', () => this.forget(socket));
      }
      this.latestResponses.set(socket, response);
      this.latestRequestTimes.set(socket, performance.now());
    });
  }

  beforeApplicationShutdown(): void {
    const server = this.server();
    const sweep = () => {
      server.closeIdleConnections();
      this.closeStillReceiving();
    };
    sweep();
    const sweeping = setInterval(sweep, 100);
    server.once('close', () => {
      clearInterval(sweeping);
      this.logger.log('HTTP server closed: every request in flight answered');
    });
    this.logger.log(
      `No new connections; idle keep-alive connections and requests still being received closed (a body once it has taken ${STALLED_BODY_MS} ms), the others close after their answer`,
    );
  }

  private closeStillReceiving(): void {
    const stalledSince = performance.now() - STALLED_BODY_MS;
    for (const [socket, response] of this.latestResponses) {
      if (!response.writableFinished && !response.req.complete && (this.latestRequestTimes.get(socket) ?? 0) <= stalledSince) {
        this.logger.warn(`closing a connection whose request body is still arriving: ${response.req.method} ${response.req.url}`);
        socket.destroy();
        this.forget(socket);
      }
    }
  }

  private forget(socket: Socket): void {
    this.latestResponses.delete(socket);
    this.latestRequestTimes.delete(socket);
  }

  private server(): Server {
    return this.adapterHost.httpAdapter.getHttpServer();
  }
}
