import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { IncomingMessage, request as httpRequest, type Server, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { NestApplicationOptions } from '@nestjs/common';
import express, { type Express } from 'express';
import { ExpressObjectsAdapter } from './express-objects';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures');
const TLS = { key: readFileSync(join(FIXTURES, 'tls-localhost-key.pem')), cert: readFileSync(join(FIXTURES, 'tls-localhost-cert.pem')) };

interface Served {
  app: Express;
  adapter: ExpressObjectsAdapter;
  server: Server;
  port: number;
  /** The prototypes of the last request and response as the server made them, before Express's own listener ran. */
  arrived: { request?: object; response?: object };
}

/** An app with GET /echo and GET /hang (never answered), on an adapter's server made with `options`. */
async function serve(options: NestApplicationOptions): Promise<Served> {
  const app = express();
  const adapter = new ExpressObjectsAdapter(app);
  // Before the routes, as Nest does when it creates an app.
  adapter.initHttpServer(options);
  app.get('/echo', (req, res) => {
    res.json({ header: req.get('X-Probe'), sameApp: req.app === app, isMessage: req instanceof IncomingMessage && res instanceof ServerResponse });
  });
  app.get('/hang', () => undefined);
  const server = adapter.getHttpServer() as Server;
  const arrived: Served['arrived'] = {};
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    arrived.request = Object.getPrototypeOf(request) as object;
    arrived.response = Object.getPrototypeOf(response) as object;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { app, adapter, server, port: (server.address() as AddressInfo).port, arrived };
}

/** One GET on a connection of its own, over HTTPS when `tls`; resolves with the status and body, rejects if the socket fails. */
function get(port: number, path: string, tls = false): Promise<{ status: number; body: string; headers: IncomingMessage['headers'] }> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { 'X-Probe': 'seen' }, agent: false, ...(tls ? { ca: TLS.cert } : {}) };
    const sent = (tls ? httpsRequest : httpRequest)(options, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('ExpressObjectsAdapter', () => {
  describe('over HTTP', () => {
    let served: Served;
    before(async () => (served = await serve({})));
    after(() => served.server.close());

    it("creates each request and response with the app's prototypes, so Express's setPrototypeOf changes nothing", async () => {
      const answer = await get(served.port, '/echo');
      assert.equal(answer.status, 200);
      assert.equal(served.arrived.request, served.app.request);
      assert.equal(served.arrived.response, served.app.response);
      // Express's request and response methods, its `app` link and Node's own classes are all still there.
      assert.deepEqual(JSON.parse(answer.body), { header: 'seen', sameApp: true, isMessage: true });
    });
  });

  it("serves HTTPS with httpsOptions, its requests and responses made with the app's prototypes too", async () => {
    const served = await serve({ httpsOptions: TLS });
    try {
      const answer = await get(served.port, '/echo', true);
      assert.equal(answer.status, 200);
      assert.equal(served.arrived.request, served.app.request);
      assert.deepEqual(JSON.parse(answer.body), { header: 'seen', sameApp: true, isMessage: true });
    } finally {
      served.server.close();
    }
  });

  it('answers 503 with Connection: close once closing, with return503OnClosing', async () => {
    const served = await serve({ return503OnClosing: true });
    try {
      assert.equal((await get(served.port, '/echo')).status, 200);
      served.adapter.beforeClose();
      const answer = await get(served.port, '/echo');
      assert.equal(answer.status, 503);
      assert.equal(answer.headers.connection, 'close');
    } finally {
      served.server.close();
    }
  });

  it('ends the connections of unanswered requests on close, with forceCloseConnections', async () => {
    const served = await serve({ forceCloseConnections: true });
    const hanging = get(served.port, '/hang');
    await once(served.server, 'request');
    await served.adapter.close();
    await assert.rejects(hanging, /socket hang up|ECONNRESET/);
  });
});
