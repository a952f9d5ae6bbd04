import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
  /** Requests not yet answered. */
  private readonly inFlight = new Set<IncomingMessage>();

  constructor(private readonly adapterHost: HttpAdapterHost<AbstractHttpAdapter<Server>>) {}

  onApplicationBootstrap(): void {
    this.server().on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.inFlight.add(request);
      response.once('close', () => this.inFlight.delete(request));
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
    for (const request of this.inFlight) {
      if (!request.complete) {
        this.logger.warn(`closing a connection whose request body is still arriving: ${request.method} ${request.url}`);
        request.socket.destroy();
        this.inFlight.delete(request);
      }
    }
  }

  private server(): Server {
    return this.adapterHost.httpAdapter.getHttpServer();
  }
}
