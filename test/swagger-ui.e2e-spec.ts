import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { VESSELS_PER_SECTOR } from './support/fixtures';
import { getAsset } from './support/http';
import { startTestApp, type TestApp } from './support/test-app';

/** Debian's Chromium (`apt-get install -y chromium`); playwright-core brings no browser of its own. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Screenshots of each step, for a human to look at; ignored by git. */
const ARTIFACTS = join(__dirname, '..', '..', 'test', 'artifacts');
/** The machine is shared and loaded: generous, and never a measure of speed. */
const STEP_TIMEOUT_MS = 60_000;

const DECOMMISSION = { reason: 'Hull breach beyond repair', authorized_by: 'Admiral Piett' };

/** Every key path of a JSON value in order, arrays by their first item: equal lists mean the same keys in the same order. */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) {
    return value.length > 0 ? keyPaths(value[0], `${prefix}[]`) : [];
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, inner]) => [`${prefix}.${key}`, ...keyPaths(inner, `${prefix}.${key}`)]);
  }
  return [];
}

/**
 * Swagger UI in a real browser, under the service's own Content-Security-Policy: it opens from `/`,
 * authorizes with a minted token, and runs "Try it out" on the fleet listing and on a decommission,
 * reading what the page shows. The service runs in-process on a real port, on SQLite: the page is
 * what is under test here, and the engines are covered by every other suite.
 */
describe('Swagger UI in Chromium, driven like an officer would', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  let token: string;
  /** Console errors (a Content-Security-Policy refusal is one) and uncaught script errors. */
  const pageProblems: string[] = [];

  const operation = (id: string) => page.locator(`#operations-${id}`);
  const screenshot = (target: Page | Locator, name: string) => target.screenshot({ path: join(ARTIFACTS, `swagger-ui-${name}.png`) });
  const shownJson = async (code: Locator) => JSON.parse(await code.innerText()) as unknown;

  /** Opens the operation, presses "Try it out", lets `fill` set the inputs, presses Execute and reads the reply off the page. */
  async function tryItOut(block: Locator, fill: () => Promise<void>) {
    await block.locator('.opblock-summary').click();
    await block.getByRole('button', { name: 'Try it out' }).click();
    await fill();
    await block.getByRole('button', { name: 'Execute' }).click();
    const live = block.locator('.live-responses-table .response');
    await live.waitFor();
    return {
      status: await live.locator('.response-col_status').innerText(),
      body: await shownJson(live.locator('.response-col_description .highlight-code pre')),
      requestUrl: await block.locator('.request-url pre').innerText(),
      curl: await block.locator('.curl-command').innerText(),
      /** The example the page documents for a 200, drawn from the OpenAPI document. */
      documentedExample: await shownJson(block.locator('.responses-table tr.response[data-code="200"] pre.example')),
    };
  }

  before(async () => {
    assert.ok(
      existsSync(CHROMIUM),
      `This test drives Swagger UI in Debian's Chromium, and ${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (.ci/run does).`,
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    token = t.bearer('officer-7', 7).slice('Bearer '.length);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 3 * STEP_TIMEOUT_MS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    page.on('console', (message) => {
      if (message.type() === 'error') {
        pageProblems.push(`console: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => pageProblems.push(`script: ${error.message}`));
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens Swagger UI from /, on OpenAPI 3.1, with limit 1..100 (default 10) and page from 1 (default 1) shown', async () => {
    await page.goto(`${base}/`);
    assert.equal(page.url(), `${base}/docs`);
    await page.locator('.information-container .title').waitFor();
    assert.match(await page.locator('.information-container .title').innerText(), /fleet-registry/);
    assert.match(await page.locator('.information-container .version-stamp').innerText(), /OAS 3\.1/);

    const listing = operation('fleet-FleetController_listStarDestroyers');
    await listing.locator('.opblock-summary').click();
    const limit = await listing.locator('tr[data-param-name="limit"]').innerText();
    for (const shown of [/Default value : 10/, /minimum: 1\b/, /maximum: 100\b/]) {
      assert.match(limit, shown);
    }
    const pageRow = await listing.locator('tr[data-param-name="page"]').innerText();
    assert.match(pageRow, /Default value : 1\b/);
    assert.match(pageRow, /minimum: 1\b/);
    await screenshot(page, '1-docs');
    // Closed again, so the next step opens it as a reader would.
    await listing.locator('.opblock-summary').click();
  });

  it('authorizes with a minted token through the Authorize dialog', async () => {
    await page.locator('.auth-wrapper').getByRole('button', { name: 'Authorize' }).click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').fill(token);
    await dialog.getByRole('button', { name: 'Apply credentials' }).click();
    assert.match(await dialog.innerText(), /Authorized/);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('lists the Outer Rim through "Try it out": the page shows 200 and the first page of that sector, keys in the documented order', async () => {
    const listing = operation('fleet-FleetController_listStarDestroyers');
    const reply = await tryItOut(listing, async () => {
      await listing.locator('tr[data-param-name="sector"] select').selectOption('Outer Rim');
    });
    await screenshot(listing, '2-fleet-listing');
    assert.equal(reply.status, '200');
    assert.match(reply.requestUrl, /\/v1\/fleet\/star-destroyers\?.*sector=Outer%20Rim/);
    assert.ok(reply.curl.includes(`Authorization: Bearer ${token}`), 'the token went with the request');
    const { status, data } = reply.body as { status: string; data: { vessels: { sector: string }[]; total_count: number; page: number; per_page: number } };
    assert.equal(status, 'success');
    assert.deepEqual(
      { total_count: data.total_count, page: data.page, per_page: data.per_page, shown: data.vessels.length },
      { total_count: VESSELS_PER_SECTOR['Outer Rim'], page: 1, per_page: 10, shown: 10 },
    );
    assert.ok(data.vessels.every((vessel) => vessel.sector === 'Outer Rim'));
    assert.deepEqual(keyPaths(reply.body), keyPaths(reply.documentedExample));
  });

  it('decommissions an asset through "Try it out" with a JSON body: the page shows 200, and the asset is decommissioned', async () => {
    const decommission = operation('assets-AssetsController_decommission');
    const reply = await tryItOut(decommission, async () => {
      await decommission.locator('tr[data-param-name="asset_id"] input').fill('TIE-0001');
      await decommission.locator('textarea.body-param__text').fill(JSON.stringify(DECOMMISSION));
    });
    await screenshot(decommission, '3-decommission');
    assert.equal(reply.status, '200');
    assert.match(reply.curl, /-X 'DELETE'/);
    assert.match(reply.curl, /Content-Type: application\/json/);
    const { status, data } = reply.body as { status: string; data: Record<string, string> };
    assert.equal(status, 'success');
    assert.deepEqual(
      { asset_id: data.asset_id, decommission_reason: data.decommission_reason, authorized_by: data.authorized_by },
      { asset_id: 'TIE-0001', decommission_reason: DECOMMISSION.reason, authorized_by: DECOMMISSION.authorized_by },
    );
    assert.deepEqual(keyPaths(reply.body), keyPaths(reply.documentedExample));

    const asset = (await getAsset(t, 'TIE-0001', t.bearer('officer-7', 7)).expect(200)).body.data;
    assert.equal(asset.status, 'decommissioned');
    assert.equal(asset.decommission_reason, DECOMMISSION.reason);
    assert.equal(asset.decommissioned_at, data.decommissioned_at);
  });

  it('meets no Content-Security-Policy refusal and no script error on the way', () => {
    assert.deepEqual(pageProblems, []);
  });
});
