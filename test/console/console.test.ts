// The operator console in a real headless Chromium (the build @sparticuz/chromium ships, see
// test/operations/packaged-chromium.ts), against one real service and one anvil devnet the test mines by hand:
// one browser, one service, one devnet for the whole suite, its steps in order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { ANVIL_KEYS, startAnvil, waitInPool, type TestAnvil } from '../support/anvil.ts';
import { SHOTS, audit, launch, shot, signIn as signInAt, type Browser } from './browser.ts';

const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const XSS_PLUGIN = `export async function handler() {
  console.log('<img src=x onerror="window.__pwned = 1">');
  return { html: '<img src=x onerror="window.__pwned = 2">' };
}
`;

let anvil: TestAnvil;
let s: TestServer;
let receiver: Server;
let receiverFails = true;
let b: Browser;
let page: Page;
let viewerKey: string;

before(async () => {
  anvil = await startAnvil();
  await anvil.setAutomine(false);
  receiver = createServer((req, res) => {
    req.resume();
    res.statusCode = receiverFails ? 500 : 200;
    res.end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const dryKey = generatePrivateKey();
  s = await build(undefined, {
    env: { WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_POLL_INTERVAL_MS: '200' },
    plugins: { 'xss.ts': XSS_PLUGIN, 'broken.ts': 'export async function handler( {\n' },
    config: {
      networks: [anvil.network('devnet')],
      signers: [
        { id: 'dev-evm-signer', type: 'local', development: true, private_key: ANVIL_KEYS[0]! },
        { id: 'dry-signer', type: 'local', development: true, private_key: dryKey },
      ],
      relayers: [
        {
          id: 'sepolia-example',
          name: 'Example EVM relayer',
          network: 'devnet',
          signer_id: 'dev-evm-signer',
          notification_id: 'example-webhook',
        },
        {
          id: 'dry-relayer',
          name: 'A relayer <b>running dry</b>',
          network: 'devnet',
          signer_id: 'dry-signer',
          policies: { min_balance: 1_000_000_000_000_000 },
        },
      ],
      notifications: [{ id: 'example-webhook', type: 'webhook', url: hook }],
      plugins: [],
    } as never,
  });
  assert.equal(privateKeyToAccount(dryKey).address.length, 42);
  await s.request('PATCH', '/api/v1/plugins/xss', { body: { emit_logs: true } });
  const viewer = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'viewer', permissions: ['relayer:all:read', 'plugin:all:read', 'notification:all:read'] },
  });
  assert.equal(viewer.status, 201, viewer.text);
  viewerKey = viewer.body.data.value;

  b = await launch();
  page = b.page;
});

after(async () => {
  await b?.close();
  await s?.close();
  await new Promise((resolve) => receiver?.close(resolve));
  await anvil?.stop();
});

const send = async (value = 1) => {
  const res = await s.request('POST', '/api/v1/relayers/sepolia-example/transactions', {
    body: { to: TO, value, speed: 'fast' },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { id: string; status: string };
};

/** Mines once the node holds the transaction's current version (its record is written before its broadcast ends). */
async function mineCurrent(id: string) {
  const { hash } = (await s.request('GET', `/api/v1/relayers/sepolia-example/transactions/${id}`)).body.data;
  await waitInPool(anvil, hash);
  await anvil.mine();
}

const signIn = (p: Page, key: string) => signInAt(p, s.url, key);

test('the console is served with a strict CSP, hashed files cached for a year, and the page never cached', async () => {
  const res = await fetch(`${s.url}/console`);
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const html = await res.text();
  const assets = [...html.matchAll(/\/console\/assets\/(app\.[A-Z0-9]+\.(?:js|css))/g)].map((m) => m[1]!);
  assert.equal(assets.length, 2, html);
  for (const name of assets) {
    const asset = await fetch(`${s.url}/console/assets/${name}`);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  }
  assert.equal((await fetch(`${s.url}/console/assets/app.NOTAHASH.js`)).status, 404);
  assert.doesNotMatch(html, /<script>|style=/, 'nothing inline');
});

test('signing in shows the relayers with their balances, and the one running dry is flagged', async () => {
  await signIn(page, API_KEY);
  const example = page.locator('tr[data-relayer="sepolia-example"]');
  await example.locator('.balance', { hasText: 'ETH' }).waitFor();
  assert.match(await example.locator('.balance').innerText(), /^10000 ETH/);
  assert.equal(
    await example.locator('.balance .amount').getAttribute('title'),
    `${10n ** 22n} wei`,
    'the exact integer on hover',
  );
  const dry = page.locator('tr[data-relayer="dry-relayer"]');
  await dry.locator('.low-balance').waitFor();
  assert.match(await dry.innerText(), /A relayer <b>running dry<\/b>/, 'the name is shown as text');
  assert.equal(await example.locator('.low-balance').count(), 0);
  await page.locator('.readiness li', { hasText: 'store' }).waitFor();
  assert.ok((await page.locator('figure.chart').count()) >= 5);
});

let confirmedId = '';

test('a transaction sent through the API reaches confirmed on the page without a reload', async () => {
  await page.goto(`${s.url}/console#/transactions/sepolia-example`);
  await page.locator('.transactions .live').waitFor();
  const loads: string[] = [];
  page.on('load', () => loads.push(page.url()));
  const tx = await send();
  confirmedId = tx.id;
  const row = page.locator(`tr[data-tx="${tx.id}"]`);
  await row.waitFor();
  await mineCurrent(tx.id);
  await page.locator(`tr[data-tx="${tx.id}"][data-status="confirmed"]`).waitFor();
  assert.deepEqual(loads, [], 'no reload');
  // The value in ETH, the wei on hover; the time relative and absolute.
  const value = row.locator('td.value .amount');
  assert.match(await value.innerText(), /ETH/);
  assert.equal(await value.getAttribute('title'), '1 wei');
  assert.match(await row.locator('time.when').innerText(), /ago\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
  await audit(page, 'transactions');
  await shot(page, 'test-transactions');
  // Found by its hash among others.
  const other = await send(5);
  await page.locator('tr[data-tx]').nth(1).waitFor();
  const { hash } = (await s.request('GET', `/api/v1/relayers/sepolia-example/transactions/${tx.id}`)).body.data;
  await page.locator('input[name="search"]').fill(hash.slice(0, 20));
  await page.locator('tr[data-tx]').nth(1).waitFor({ state: 'detached' });
  assert.deepEqual(
    await page.locator('tr[data-tx]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-tx'))),
    [tx.id],
  );
  await mineCurrent(other.id);
  if (SHOTS) {
    await page.goto(`${s.url}/console#/overview`);
    await page.locator('tr[data-relayer="sepolia-example"] .balance', { hasText: 'ETH' }).waitFor();
    await page.locator('.readiness li').first().waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'overview.png'), fullPage: true });
    await shot(page, 'test-overview-devnet');
  }
});

test("a transaction's timeline shows its status changes, its hash and its webhook deliveries", async () => {
  await page.goto(`${s.url}/console#/tx/sepolia-example/${confirmedId}`);
  await page.locator('[data-current-status="confirmed"]').waitFor();
  const kinds = await page
    .locator('.timeline li')
    .evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')));
  assert.ok(kinds.includes('status') && kinds.includes('broadcast'), kinds.join());
  const text = await page.locator('.timeline').innerText();
  assert.match(text, /submitted/);
  assert.match(text, /confirmed/);
  await page.locator('.timeline li[data-kind="webhook"]').first().waitFor();
  // Final: nothing to replace or cancel, and nothing offered.
  assert.equal(await page.locator('button[data-action="replace"], button[data-action="cancel"]').count(), 0);
  assert.match(await page.locator('.final').innerText(), /confirmed: final/);
  assert.match(await page.locator('[data-fact="value"] .amount').innerText(), /ETH/);
});

test('a cancel dialog left open closes when the transaction confirms underneath it, and says nothing was sent', async () => {
  const tx = await send(6);
  await page.goto(`${s.url}/console#/tx/sepolia-example/${tx.id}`);
  await page.locator('[data-current-status="submitted"]').waitFor();
  await page.locator('button[data-action="cancel"]').click();
  await page.locator('.modal').waitFor();
  await audit(page, 'cancel-dialog');
  await mineCurrent(tx.id);
  await page.locator('[data-current-status="confirmed"]').waitFor();
  await page.locator('.modal').waitFor({ state: 'detached' });
  assert.match(await page.locator('.notice').innerText(), /It is confirmed now: the cancel was not sent/);
  assert.equal(
    (await s.request('GET', `/api/v1/relayers/sepolia-example/transactions/${tx.id}`)).body.data.status,
    'confirmed',
  );
});

test('replacing a transaction from its page signs a new version with higher fees under the same nonce', async () => {
  const tx = await send(4);
  await page.goto(`${s.url}/console#/tx/sepolia-example/${tx.id}`);
  await page.locator('[data-current-status="submitted"]').waitFor();
  await page.locator('button[data-action="replace"]').click();
  const dialog = page.locator('.modal');
  assert.match(await dialog.innerText(), /new version is signed under nonce \d+/);
  await dialog.locator('button.danger').click();
  // .first(): on a loaded machine the service may also re-price it (a second re-broadcast) before the page reads it.
  await page.locator('.timeline li[data-kind="broadcast"]', { hasText: 're-broadcast' }).first().waitFor();
  assert.match(await page.locator('.timeline li[data-kind="fees"]').last().innerText(), /max_fee_per_gas \d+ -> \d+/);
  await mineCurrent(tx.id);
  await page.locator('[data-current-status="confirmed"]').waitFor();
});

test('canceling another transaction from its page says what happens on chain, and the NOOP cancels it', async () => {
  const tx = await send(2);
  await page.goto(`${s.url}/console#/tx/sepolia-example/${tx.id}`);
  await page.locator('[data-current-status="submitted"]').waitFor();
  await page.locator('button[data-action="cancel"]').click();
  const dialog = page.locator('.modal');
  assert.match(await dialog.innerText(), /NOOP is signed under nonce \d+/);
  await dialog.locator('button.danger').click();
  await page.locator('.timeline li[data-kind="broadcast"]', { hasText: 'NOOP' }).first().waitFor();
  await mineCurrent(tx.id);
  await page.locator('[data-current-status="canceled"]').waitFor();
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'timeline.png'), fullPage: true });
  await audit(page, 'timeline');
  await shot(page, 'test-timeline');
});

test("a plugin's log line that is markup is shown as text, and no script runs", async () => {
  await page.goto(`${s.url}/console#/plugins/xss`);
  await page.locator('.plugin-detail').waitFor();
  await page.locator('textarea[name="params"]').fill('{"x": "<script>window.__pwned = 3</script>"}');
  await page.locator('button[data-action="call"]').click();
  await page.locator('.call-answer').waitFor();
  const log = page.locator('.calls .logs li').first();
  await log.waitFor();
  assert.match(await log.innerText(), /<img src=x onerror="window.__pwned = 1">/);
  assert.match(await page.locator('.call-answer').innerText(), /<img src=x onerror/);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.equal(await page.locator('main img, main script').count(), 0);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'plugins.png'), fullPage: true });
  // A plugin that does not compile shows the compiler's message.
  assert.match(await page.locator('tr[data-plugin="broken"] .plugin-error').innerText(), /\S/);
  assert.match(await page.locator('tr[data-plugin="xss"]').innerText(), /loaded/);
});

test('a failing webhook is shown, and retried once its receiver is back it is delivered', async () => {
  await page.goto(`${s.url}/console#/webhooks`);
  const failed = page.locator('section[data-notification="example-webhook"] tr[data-status="failed"]').first();
  await failed.waitFor();
  const id = await failed.getAttribute('data-delivery');
  receiverFails = false;
  await failed.locator('button[data-action="retry"]').click();
  await page.locator(`tr[data-delivery="${id}"][data-status="delivered"]`).waitFor();
});

test('a read-only key sees everything and is offered no action', async () => {
  const viewer = await b.newPage();
  await signIn(viewer, viewerKey);
  await viewer.locator('.read-only').waitFor();
  await viewer.locator('tr[data-relayer="sepolia-example"] .balance', { hasText: 'ETH' }).waitFor();
  assert.equal(await viewer.locator('button[data-action]').count(), 0, 'no pause, edit or create');
  const tx = await send(3);
  await viewer.goto(`${s.url}/console#/tx/sepolia-example/${tx.id}`);
  await viewer.locator('[data-current-status="submitted"]').waitFor();
  assert.equal(await viewer.locator('button[data-action]').count(), 0, 'no replace or cancel');
  // Failed deliveries without a retry button, a plugin without its call form.
  await viewer.goto(`${s.url}/console#/webhooks`);
  await viewer.locator('section[data-notification="example-webhook"] tr[data-status="delivered"]').first().waitFor();
  assert.equal(await viewer.locator('button[data-action]').count(), 0);
  await viewer.goto(`${s.url}/console#/plugins/xss`);
  await viewer.locator('.calls li.call').first().waitFor();
  assert.equal(await viewer.locator('button[data-action], textarea[name="params"]').count(), 0);
  await audit(viewer, 'read-only-plugins');
  await viewer.close();
  await mineCurrent(tx.id);
});

test('the key never appears in a URL or a log line, and the pages load nothing from elsewhere', () => {
  assert.ok(b.requests.length > 10);
  for (const url of b.requests) {
    assert.ok(url.startsWith(s.url), `foreign request ${url}`);
    assert.ok(!url.includes(API_KEY) && !url.includes(viewerKey), `a key in ${url}`);
  }
  assert.ok(
    b.requests.some((u) => u.includes('/api/v1/events')),
    'the events stream was read',
  );
  assert.ok(!s.rawLogs().includes(viewerKey) && !s.rawLogs().includes(API_KEY));
  assert.deepEqual(b.problems, [], 'no script or content-security errors');
});
