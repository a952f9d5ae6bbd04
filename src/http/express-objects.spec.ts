import assert from 'node:assert/strict';
import { once } from 'node:events';
import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express, { type Express } from 'express';
import { ExpressObjectsAdapter } from './express-objects';

describe('ExpressObjectsAdapter', () => {
  let app: Express;
  let server: Server;
  let url: string;
  const arrived: { request?: object; response?: object } = {};

  before(async () => {
    app = express();
    app.get('/echo', (req, res) => {
      res.json({ header: req.get('X-Probe'), sameApp: req.app === app, isMessage: req instanceof IncomingMessage && res instanceof ServerResponse });
    });
    const adapter = new ExpressObjectsAdapter(app);
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    // Before Express's own listener: what the server made, before app.handle could change it.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      arrived.request = Object.getPrototypeOf(request) as object;
      arrived.response = Object.getPrototypeOf(response) as object;
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  it("creates each request and response with the app's prototypes, so Express's setPrototypeOf changes nothing", async () => {
    const answer = await fetch(`${url}/echo`, { headers: { 'X-Probe': 'seen' } });
    assert.equal(answer.status, 200);
    assert.equal(arrived.request, app.request);
    assert.equal(arrived.response, app.response);
    // Express's request and response methods, its `app` link and Node's own classes are all still there.
    assert.deepEqual(await answer.json(), { header: 'seen', sameApp: true, isMessage: true });
  });

  it('refuses the options whose servers it does not make, rather than ignore them', () => {
    const adapter = new ExpressObjectsAdapter(express());
    assert.throws(() => adapter.initHttpServer({ httpsOptions: {} }), /plain HTTP only/);
    assert.throws(() => adapter.initHttpServer({ forceCloseConnections: true }), /plain HTTP only/);
  });
});
