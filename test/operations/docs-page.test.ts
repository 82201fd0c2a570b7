// GET /docs in a real headless Chromium (the build shipped in an npm package, see packaged-chromium.ts): the
// reference lists the routes, and "Try it out" sends an authorized request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { API_KEY, build } from '../helper.ts';
import { packagedChromium } from './packaged-chromium.ts';

// Without the background-networking flags Chromium keeps trying hosts this closed network refuses.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

test('the docs page lists the plugin call and replace routes, and Try it out sends the API key', async (t) => {
  const { executablePath, env } = packagedChromium();
  const s = await build(t);
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'relaybox-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    env,
    headless: true,
    args: ARGS,
  });
  t.after(async () => {
    await browser.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  // Generous: a loaded CI machine parses the 1.5 MB Swagger UI bundle slowly (this test asserts no timing).
  page.setDefaultTimeout(180_000);
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(s.url)) foreign.push(req.url());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.text());
  });

  await page.goto(`${s.url}/docs`);
  const replace = page.locator('#operations-relayers-putRelayersRelayerIdTransactionsTransactionId');
  const call = page.locator('#operations-plugins-postPluginsPluginIdCall');
  await replace.waitFor();
  assert.match(
    await replace.locator('.opblock-summary-path').innerText(),
    /\/api\/v1\/relayers\/\{relayer_id\}\/transactions\/\{transaction_id\}/,
  );
  assert.match(await call.locator('.opblock-summary-path').innerText(), /\/api\/v1\/plugins\/\{plugin_id\}\/call/);
  assert.equal((await call.locator('.opblock-summary-method').innerText()).trim(), 'POST');
  assert.equal((await replace.locator('.opblock-summary-method').innerText()).trim(), 'PUT');

  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input').first().fill(API_KEY);
  await dialog.locator('.auth-btn-wrapper .authorize').click();
  await dialog.locator('.auth-btn-wrapper .btn-done').click();

  const list = page.locator('#operations-relayers-getRelayers');
  await list.locator('.opblock-summary').click();
  await list.locator('.try-out__btn').click();
  const answered = page.waitForResponse(
    (res) => new URL(res.url()).pathname === '/api/v1/relayers' && res.request().method() === 'GET',
  );
  await list.locator('.execute').click();
  const response = await answered;
  assert.equal(response.request().headers().authorization, `Bearer ${API_KEY}`);
  assert.equal(response.status(), 200);
  const body = (await response.json()) as { success: boolean; data: Array<{ id: string }> };
  assert.equal(body.success, true);
  assert.ok(body.data.some((r) => r.id === 'sepolia-example'));
  const shown = list.locator('.live-responses-table tr.response .response-col_status');
  await shown.first().waitFor();
  assert.match(await shown.first().innerText(), /200/);

  // persistAuthorization: the key survives a reload, so the next Try it out is authorized too.
  await page.reload();
  await page.locator('.auth-wrapper .authorize.locked').waitFor();

  assert.deepEqual(foreign, [], 'the page loads nothing from another origin');
  assert.deepEqual(problems, [], 'no script or content-security errors');
});
