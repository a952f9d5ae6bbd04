import type { Server, ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';

/**
 * A keep-alive client that keeps sending would hold the server open through a shutdown, as Node only
 * closes idle connections. Once shutdown starts, every response closes its connection instead, so
 * the server stops when the requests in flight have their answers. A request read before that keeps
 * its connection alive, so idle connections are closed again until the server has closed.
 */
@Injectable()
export class ConnectionDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  constructor(private readonly adapterHost: HttpAdapterHost<AbstractHttpAdapter<Server>>) {}

  beforeApplicationShutdown(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer();
    server.prependListener('request', (_request, response: ServerResponse) => response.setHeader('Connection', 'close'));
    const closeIdle = setInterval(() => server.closeIdleConnections(), 100);
    server.once('close', () => {
      clearInterval(closeIdle);
      this.logger.log('HTTP server closed: every request in flight answered');
    });
    this.logger.log('No new connections; idle keep-alive connections closed, the others close after their answer');
  }
}
