import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';

/**
 * A keep-alive client that keeps sending would hold the server open through a shutdown, as Node only
 * closes idle connections. Once shutdown starts, every response closes its connection instead, so
 * the server stops when the requests in flight have their answers. A request read before that keeps
 * its connection alive, so idle connections are closed again until the server has closed. A request
 * whose body is still arriving has no handler running yet and could hold the drain until the request
 * timeout: its connection is closed.
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

  constructor(private readonly adapterHost: HttpAdapterHost<AbstractHttpAdapter<Server>>) {}

  onApplicationBootstrap(): void {
    this.server().on('request', (request: IncomingMessage, response: ServerResponse) => {
      const { socket } = request;
      if (!this.latestResponses.has(socket)) {
        socket.once('close', () => this.latestResponses.delete(socket));
      }
      this.latestResponses.set(socket, response);
    });
  }

  beforeApplicationShutdown(): void {
    const server = this.server();
    server.prependListener('request', (_request, response: ServerResponse) => response.setHeader('Connection', 'close'));
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
    this.logger.log('No new connections; idle keep-alive connections and requests still being received closed, the others close after their answer');
  }

  private closeStillReceiving(): void {
    for (const [socket, response] of this.latestResponses) {
      if (!response.writableFinished && !response.req.complete) {
        this.logger.warn(`closing a connection whose request body is still arriving: ${response.req.method} ${response.req.url}`);
        socket.destroy();
        this.latestResponses.delete(socket);
      }
    }
  }

  private server(): Server {
    return this.adapterHost.httpAdapter.getHttpServer();
  }
}
