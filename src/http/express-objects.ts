import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, NextFunction, Request, Response } from 'express';

/**
 * A subclass of `base` whose prototype takes the place of `prototype` (an app's `request` or
 * `response`) in the chain: it inherits what `prototype` inherits and holds what it holds.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeScript's mixin rule: a base class is `new (...args: any[]) => object`
function classInPlaceOf<T extends new (...args: any[]) => object>(base: T, prototype: object): T {
  const standIn = class extends base {};
  Object.setPrototypeOf(standIn.prototype, Object.getPrototypeOf(prototype) as object);
  Object.defineProperties(standIn.prototype, Object.getOwnPropertyDescriptors(prototype));
  return standIn;
}

/**
 * Nest's Express adapter, whose HTTP or HTTPS server creates each request and response as Express's own objects.
 *
 * Express gives every request and response its app's prototypes with `Object.setPrototypeOf`
 * (`app.handle`), which V8 pays for on every request: objects whose prototype changes after they are
 * made leave its fast paths. Here the server makes the requests and responses from classes whose
 * prototypes stand in for `app.request` and `app.response`, so Express's call finds the prototype
 * already in place and changes nothing. On Node 24 and 26 the service then spends about a tenth less CPU
 * per listing answer (see docs/performance.md; expressjs/express#5998 proposes the same for Express itself).
 *
 * Nest's own adapter makes its server in `initHttpServer`, so this one honours Nest's server options
 * itself, as Nest does: `httpsOptions`, `return503OnClosing` and `forceCloseConnections`.
 */
export class ExpressObjectsAdapter extends ExpressAdapter {
  private closing = false;
  private readonly openSockets = new Set<Socket>();

  override initHttpServer(options: NestApplicationOptions): void {
    const app = this.getInstance<Express>();
    const ExpressRequest = classInPlaceOf(IncomingMessage, app.request);
    const ExpressResponse = classInPlaceOf(ServerResponse, app.response);
    app.request = ExpressRequest.prototype as Request;
    app.response = ExpressResponse.prototype as Response;
    const objects = { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
    const server = options.httpsOptions ? createHttpsServer({ ...options.httpsOptions, ...objects }, app) : createServer(objects, app);
    this.setHttpServer(server);
    if (options.return503OnClosing) {
      app.use((_req: Request, res: Response, next: NextFunction) => {
        if (this.closing) {
          res.set('Connection', 'close');
          res.status(503).send('Service Unavailable');
        } else {
          next();
        }
      });
    }
    if (options.forceCloseConnections) {
      server.on('connection', (socket: Socket) => {
        this.openSockets.add(socket);
        socket.on('close', () => this.openSockets.delete(socket));
      });
    }
  }

  override beforeClose(): void {
    this.closing = true;
    super.beforeClose();
  }

  override close(): Promise<unknown> | undefined {
    this.closing = true;
    for (const socket of this.openSockets) {
      socket.destroy();
    }
    this.openSockets.clear();
    return super.close();
  }
}
