import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Request, Response } from 'express';

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
 * Nest's Express adapter, whose HTTP server creates each request and response as Express's own objects.
 *
 * Express gives every request and response its app's prototypes with `Object.setPrototypeOf`
 * (`app.handle`). Node 20's V8 then keeps each of them off its fast paths, and everything they reference
 * outlives the next minor garbage collection: a bare Express app on this machine spent 90 µs of CPU a
 * request, 40% of its young objects survived each scavenge, and each scavenge paused it about 5 ms
 * (Node 24's V8 does not, and gains only a few µs here).
 * Here the server makes the requests and responses from classes whose prototypes stand in for
 * `app.request` and `app.response`, so Express's call finds the prototype already in place and changes
 * nothing: the same app spent 32 µs a request, with 0.1% surviving and 0.3 ms pauses (see
 * docs/performance.md; expressjs/express#5998 proposes the same for Express itself).
 */
export class ExpressObjectsAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions || options.forceCloseConnections || options.return503OnClosing) {
      throw new Error('ExpressObjectsAdapter serves plain HTTP only, without forceCloseConnections or return503OnClosing');
    }
    const app = this.getInstance<Express>();
    const ExpressRequest = classInPlaceOf(IncomingMessage, app.request);
    const ExpressResponse = classInPlaceOf(ServerResponse, app.response);
    app.request = ExpressRequest.prototype as Request;
    app.response = ExpressResponse.prototype as Response;
    this.setHttpServer(createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, app));
  }
}
