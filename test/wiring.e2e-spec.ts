import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GLOBAL_GUARDS } from '../src/app.module';
import { decommission, expectErrorBody, listFleet } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

const REQUESTS_PER_MINUTE = 8;

/**
 * The app's wiring, seen from outside: each global guard's refusal wins over the next one's, in the
 * order GLOBAL_GUARDS lists them, and the catch-all 405 routes come after the real ones.
 */
describe('the app as wired', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE) } });
  });
  after(() => t.close());

  it('lists its global guards in one place, in the order each request meets them', () => {
    assert.deepEqual(
      GLOBAL_GUARDS.map((guard) => guard.name),
      ['ForwardedForGuard', 'RequestLimitGuard', 'AuthenticationGuard', 'ClearanceGuard', 'BodyErrorGuard'],
    );
  });

  it('runs them in that order: each refusal beats the ones of the guards after it', async () => {
    // Every request here fails every guard it reaches; the answer names the first of them.
    expectErrorBody(await decommission(t, 'TIE-0001', t.bearer('officer-7', 7), '{not json'), 400, 'VALIDATION_ERROR');
    expectErrorBody(await decommission(t, 'TIE-0001', t.bearer('cadet-3', 3), '{not json'), 403, 'ASSET_ACCESS_DENIED');
    expectErrorBody(await decommission(t, 'TIE-0001', undefined, '{not json'), 401, 'UNAUTHENTICATED');
    let answered = 3;
    while (answered < REQUESTS_PER_MINUTE) {
      expectErrorBody(await decommission(t, 'TIE-0001', undefined, '{not json'), 401, 'UNAUTHENTICATED');
      answered++;
    }
    expectErrorBody(await decommission(t, 'TIE-0001', undefined, '{not json'), 429, 'RATE_LIMITED');
  });
});

describe('the catch-all 405 routes', () => {
  let t: TestApp;

  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('come after the real routes: a route answers its own method, and only other methods get 405', async () => {
    const officer = t.bearer('officer-1', 1);
    assert.equal((await listFleet(t, 'limit=1', officer)).status, 200);
    const refused = await t.http().post('/v1/fleet/star-destroyers').set('Authorization', officer);
    expectErrorBody(refused, 405, 'METHOD_NOT_ALLOWED');
  });
});
