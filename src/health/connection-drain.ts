import type { Server, ServerResponse } from 'node:http';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';

/**
 * A keep-alive client that keeps sending would hold the server open through a shutdown, as Node only
 * closes idle connections. Once shutdown starts, every response closes its connection instead, so
 * the server stops when the requests in flight have their answers.
 */
@Injectable()
export class ConnectionDrain implements BeforeApplicationShutdown {
  constructor(private readonly adapterHost: HttpAdapterHost<AbstractHttpAdapter<Server>>) {}

  beforeApplicationShutdown(): void {
    this.adapterHost.httpAdapter
      .getHttpServer()
      .prependListener('request', (_request, response: ServerResponse) => response.setHeader('Connection', 'close'));
  }
}
