import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from './support/databases';
import { DECOMMISSION_BODY } from './support/fixtures';
import { decommission, expectErrorBody, getAsset, listAssets, listAuditEvents, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

/** Input built to break the service: each gets a 4xx with the error body, and nothing changes. */
describeEachDatabase('hostile input', (engine) => {
  let t: TestApp;
  let admiral: string;
  let trooper: string;

  const assetStatus = async (assetId: string) =>
    (await t.db.selectFrom('assets').select('status').where('asset_id', '=', assetId).executeTakeFirstOrThrow()).status;
  const eventCount = async () => Number((await t.db.selectFrom('audit_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const lastEvent = () => t.db.selectFrom('audit_events').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

  before(async () => {
    t = await startTestApp({ engine });
    admiral = t.bearer('admiral-7', 7);
    trooper = t.bearer('trooper-0', 0);
  });
  after(() => t.close());

  describe('the decommission body', () => {
    const refused = async (body: string, field?: string) => {
      expectErrorBody(await decommission(t, 'TIE-0001', admiral, body), 400, 'VALIDATION_ERROR', field);
      assert.equal(await assetStatus('TIE-0001'), 'active');
      assert.equal(Object.getPrototypeOf({}), Object.prototype);
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
    };

    it('refuses __proto__, constructor and prototype keys with 400 naming them, and pollutes no prototype', async () => {
      for (const key of ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
        await refused(`{"reason":"r","authorized_by":"a","${key}":{"polluted":"yes"}}`, key);
      }
      await refused('{"reason":"r","authorized_by":"a","x":{"__proto__":{"polluted":"yes"}}}', 'x');
    });

    it('cuts a message naming many unknown fields to the 1024 characters the API documents, ending in an ellipsis', async () => {
      const body = Object.fromEntries([['reason', 'r'], ['authorized_by', 'a'], ...Array.from({ length: 200 }, (_, index) => [`unknown_field_${index}`, 1])]);
      const res = await decommission(t, 'TIE-0001', admiral, JSON.stringify(body));
      expectErrorBody(res, 400, 'VALIDATION_ERROR', 'unknown_field_0');
      assert.equal(res.body.message.length, 1024);
      assert.ok(res.body.message.endsWith('…'));
    });

    it('refuses a body that is an array, a string, a number, null or true with 400', async () => {
      for (const body of ['[]', `[${JSON.stringify(DECOMMISSION_BODY)}]`, '"text"', '42', 'null', 'true']) {
        await refused(body);
      }
    });

    it('refuses a body nested 1,500 and 8,000 deep with 400, before any validation code walks it', async () => {
      await refused(`{"reason":${'{"a":'.repeat(1500)}1${'}'.repeat(1500)},"authorized_by":"a"}`);
      await refused(`{"reason":${'['.repeat(8000)}${']'.repeat(8000)},"authorized_by":"a"}`);
    });

    it('refuses control characters (NUL included) and unpaired surrogates in reason and authorized_by', async () => {
      for (const value of ['a\u0000b', 'tab\there', 'line\nbreak', 'del\u007f', 'c1\u0085', 'lone \ud800 high', 'lone \udc00 low']) {
        await refused(JSON.stringify({ reason: value, authorized_by: 'a' }), 'reason');
        await refused(JSON.stringify({ reason: 'r', authorized_by: value }), 'authorized_by');
      }
    });

    it('answers exactly what it stores: astral characters and other scripts come back and are kept unchanged', async () => {
      const body = { reason: 'Destroyed 🚀 über Hoth — 破損', authorized_by: 'Грand Moff 𝒯arkin' };
      const res = await decommission(t, 'TIE-0002', admiral, body).expect(200);
      assert.equal(res.body.data.decommission_reason, body.reason);
      assert.equal(res.body.data.authorized_by, body.authorized_by);
      const stored = await getAsset(t, 'TIE-0002', admiral).expect(200);
      assert.equal(stored.body.data.decommission_reason, body.reason);
      assert.equal(stored.body.data.authorized_by, body.authorized_by);
    });

    it('refuses a body that is not application/json with 415 UNSUPPORTED_MEDIA_TYPE, even when it is valid JSON', async () => {
      const json = JSON.stringify(DECOMMISSION_BODY);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
        const res = await t.http().delete('/v1/assets/TIE-0001').set('Authorization', admiral).set('Content-Type', type).send(json);
        expectErrorBody(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
      const res = await t.http().delete('/v1/assets/TIE-0001').set('Authorization', admiral).set('Content-Type', 'application/json; charset=latin1').send(json);
      expectErrorBody(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });

    it('refuses JSON in any charset but UTF-8 with 415, acting on nothing, and reads utf-8 however it is spelled', async () => {
      const json = JSON.stringify(DECOMMISSION_BODY);
      for (const [charset, encoding] of [['utf-16le', 'utf16le'], ['UTF-16', 'utf16le'], ['utf-32', 'utf8'], ['iso-8859-1', 'latin1']] as const) {
        const res = await t.http().delete('/v1/assets/TIE-0001').set('Authorization', admiral).set('Content-Type', `application/json; charset=${charset}`).send(Buffer.from(json, encoding));
        expectErrorBody(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
        assert.match(res.body.message, /UTF-8/);
      }
      assert.equal(await assetStatus('TIE-0001'), 'active');
      // Read and acted on: an unknown asset, so that the fixture stays as the other tests expect it.
      const utf8 = await t.http().delete('/v1/assets/XYZ-0404').set('Authorization', admiral).set('Content-Type', 'application/json; charset="UTF-8"').send(json);
      expectErrorBody(utf8, 404, 'ASSET_ACCESS_DENIED');
    });

    it('reports a body failure only after the token and the clearance', async () => {
      const textBody = (authorization?: string) => {
        const req = t.http().delete('/v1/assets/TIE-0001').set('Content-Type', 'text/plain');
        return (authorization ? req.set('Authorization', authorization) : req).send('{}');
      };
      expectErrorBody(await textBody(), 401, 'UNAUTHENTICATED');
      expectErrorBody(await textBody(t.bearer('major-6', 6)), 403, 'ASSET_ACCESS_DENIED');
      expectErrorBody(await decommission(t, 'TIE-0001', undefined, '{"__proto__":{}}'), 401, 'UNAUTHENTICATED');
      expectErrorBody(await decommission(t, 'TIE-0001', t.bearer('major-6', 6), '[1]'), 403, 'ASSET_ACCESS_DENIED');
      expectErrorBody(await decommission(t, 'XYZ-0404', admiral, '{"constructor":1}'), 400, 'VALIDATION_ERROR', 'constructor');
    });
  });

  describe('query names that shadow Object.prototype members', () => {
    const names = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf', 'prototype'];

    it('are refused like any unknown name, with 400 naming the field, on every listing', async () => {
      for (const name of names) {
        expectErrorBody(await listFleet(t, `${name}=1`, trooper), 400, 'VALIDATION_ERROR', name);
        expectErrorBody(await listAssets(t, `${name}=x`, admiral), 400, 'VALIDATION_ERROR', name);
        expectErrorBody(await listAuditEvents(t, `${name}=1`, admiral), 400, 'VALIDATION_ERROR', name);
      }
    });

    it('are refused when nested or repeated too', async () => {
      expectErrorBody(await listFleet(t, '__proto__[limit]=1', trooper), 400, 'VALIDATION_ERROR');
      expectErrorBody(await listFleet(t, 'constructor=1&constructor=2', trooper), 400, 'VALIDATION_ERROR', 'constructor');
    });
  });

  describe('a malformed path', () => {
    const malformed = '/v1/assets/%E0%A4%A';

    it('is 401 without a token, and the refusal is audited with the path as sent', async () => {
      const before = await eventCount();
      const res = await t.http().delete(malformed).send(DECOMMISSION_BODY);
      expectErrorBody(res, 401, 'UNAUTHENTICATED');
      assert.equal(await eventCount(), before + 1);
      const event = await lastEvent();
      assert.equal(event.request_id, res.headers['x-request-id']);
      assert.equal(event.reason, 'TOKEN_MISSING');
      assert.equal(event.path, malformed);
      expectErrorBody(await t.http().get(malformed), 401, 'UNAUTHENTICATED');
    });

    it('is 403 with a low clearance, then 400 naming asset_id with enough', async () => {
      expectErrorBody(await t.http().delete(malformed).set('Authorization', t.bearer('major-6', 6)).send(DECOMMISSION_BODY), 403, 'ASSET_ACCESS_DENIED');
      for (const path of [malformed, '/v1/assets/%FF', '/v1/assets/%', '/v1/assets/TIE-%ZZ01', '/api/v1/assets/%C0%80']) {
        expectErrorBody(await t.http().delete(path).set('Authorization', admiral).send(DECOMMISSION_BODY), 400, 'VALIDATION_ERROR', 'asset_id');
        expectErrorBody(await t.http().get(path).set('Authorization', admiral), 400, 'VALIDATION_ERROR', 'asset_id');
      }
    });

    it('on a route without parameters is simply no route', async () => {
      expectErrorBody(await t.http().get('/v1/fleet/star-%E0%A4%A').set('Authorization', trooper), 404, 'NOT_FOUND');
    });
  });

  describe('methods and path variants', () => {
    it('answers another method on an existing route with 405 METHOD_NOT_ALLOWED and Allow, once authenticated', async () => {
      const cases: Array<[string, string, string]> = [
        ['post', '/v1/fleet/star-destroyers', 'GET, HEAD'],
        ['put', '/v1/assets/TIE-0001', 'DELETE, GET, HEAD'],
        ['patch', '/api/v1/assets/TIE-0001', 'DELETE, GET, HEAD'],
        ['delete', '/v1/assets', 'GET, HEAD'],
        ['post', '/v1/audit/events', 'GET, HEAD'],
        ['options', '/v1/assets', 'GET, HEAD'],
        ['post', '/health/live', 'GET, HEAD'],
      ];
      for (const [method, path, allow] of cases) {
        const res = await t.http()[method as 'post'](path).set('Authorization', admiral);
        expectErrorBody(res, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(res.headers.allow, allow, `${method} ${path}`);
        expectErrorBody(await t.http()[method as 'post'](path), 401, 'UNAUTHENTICATED');
      }
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });

    it('still serves HEAD wherever GET is', async () => {
      await t.http().head('/v1/fleet/star-destroyers').set('Authorization', trooper).expect(200);
      await t.http().head('/health/live').expect(200);
    });

    it('never lets a variant of a path (case, trailing or double slash, another version) reach a handler', async () => {
      const variants = [
        '/V1/fleet/star-destroyers',
        '/v1/Fleet/star-destroyers',
        '/v1/fleet/star-destroyers/',
        '/v1//fleet/star-destroyers',
        '//v1/fleet/star-destroyers',
        '/v2/fleet/star-destroyers',
        '/API/v1/fleet/star-destroyers',
        '/v1/assets/',
        '/v1/assets/TIE-0001/',
        '/v1/assets//TIE-0001',
        '/v1/audit/events/',
        '/health/live/',
      ];
      for (const path of variants) {
        expectErrorBody(await t.http().get(path).set('Authorization', admiral), 404, 'NOT_FOUND');
      }
      expectErrorBody(await decommission(t, 'TIE-0001/', admiral), 404, 'NOT_FOUND');
      assert.equal(await assetStatus('TIE-0001'), 'active');
    });
  });
});
