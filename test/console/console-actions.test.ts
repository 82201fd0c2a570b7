// The console's actions and display fixes (issue 45) in a real headless Chromium against one real service with no
// chain (its networks' RPC is down, which the overview must say in the right column): signers, relayers (create,
// edit, pause, resume), API keys (the secret once, revoke), webhook notifications (create, test, delete, a dead
// receiver shown failing), plugin settings, and what a scoped key is offered. One browser and one service, in order.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { eventually } from '../support/eventually.ts';
import { audit, axeInstalled, launch, shot, signIn, type Browser } from './browser.ts';

const PLUGIN = `export async function handler() {
  console.log('a line the plugin logged');
  return { ok: true };
}
`;

let s: TestServer;
let live: Server;
let deadUrl: string;
const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
let b: Browser;
let page: Page;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
};

before(async () => {
  live = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => (received.push({ headers: req.headers, body }), res.end()));
  });
  const liveUrl = await listen(live);
  // A port that was listened on and closed: connections to it are refused.
  const gone = createServer();
  deadUrl = await listen(gone);
  await new Promise((resolve) => gone.close(resolve));
  s = await build(undefined, {
    // Many attempts, short waits: a dead receiver's events stay pending, retried, as in production's first minutes.
    env: {
      WEBHOOK_MAX_ATTEMPTS: '1000',
      WEBHOOK_BACKOFF_BASE_MS: '300',
      WEBHOOK_BACKOFF_MAX_MS: '600',
      WEBHOOK_POLL_INTERVAL_MS: '200',
    },
    plugins: { 'echo.ts': PLUGIN },
    config: {
      notifications: [
        { id: 'dead-hook', type: 'webhook', url: deadUrl },
        { id: 'live-hook', type: 'webhook', url: liveUrl },
      ],
      plugins: [],
    } as never,
  });
  // The dead receiver is a relayer's notification, so it cannot be deleted (a refusal the console shows).
  assert.equal(
    (await s.request('PATCH', '/api/v1/relayers/sepolia-example', { body: { notification_id: 'dead-hook' } })).status,
    200,
  );
  b = await launch();
  page = b.page;
});

after(async () => {
  await b?.close();
  await s?.close();
  await new Promise((resolve) => live?.close(resolve));
});

/** The dialog's error line: the API's own message. */
const dialogError = (name: string) => page.locator(`[data-dialog="${name}"] .error`);

test('the overview shows only configured parts, RPC trouble in the state column, and charts with a time axis', async () => {
  await signIn(page, s.url, API_KEY);
  await page.locator('.readiness li[data-component="store"]').waitFor();
  assert.equal(await page.locator('.readiness li[data-component="redis"]').count(), 0, 'no Redis is configured');
  const row = page.locator('tr[data-relayer="sepolia-example"]');
  await row.locator('.rpc-down').waitFor();
  const reason = (await row.locator('td.state .state-reason').innerText()).trim();
  assert.ok(reason.length > 0, 'the reason is in the state column');
  const balance = (await row.locator('td.balance').innerText()).trim();
  assert.ok(
    !balance.includes(reason) && !/rpc|down|unavailable|error|fail/i.test(balance),
    `no RPC text in the balance column: ${balance}`,
  );
  const ticks = await page.locator('figure.chart').first().locator('text.chart-tick').allTextContents();
  assert.equal(ticks.length, 3);
  for (const t of ticks) assert.match(t, /^\d\d:\d\d$/);
  assert.match(await page.locator('.since').innerText(), /restart starts them empty \(counting since \d+ (s|min) ago/);
  await audit(page, 'overview');
  await shot(page, 'test-overview-rpc-down');
});

test('signers: listed, a refusal shown as the API says it, and a new plain signer created', async () => {
  await page.goto(`${s.url}/console#/signers`);
  await page.locator('tr[data-signer="dev-evm-signer"]').waitFor();
  await page.locator('button[data-action="new-signer"]').click();
  await page.locator('[data-dialog="new-signer"] input[name="id"]').fill('console-signer');
  await page.locator('[data-dialog="new-signer"] input[name="key"]').fill('not hex');
  await page.locator('[data-dialog="new-signer"] button[type="submit"]').click();
  await dialogError('new-signer').waitFor();
  const refused = await s.request('POST', '/api/v1/signers', {
    body: { id: 'console-signer', type: 'plain', config: { key: 'not hex' } },
  });
  assert.equal(await dialogError('new-signer').innerText(), refused.body.error);
  await page.locator('[data-dialog="new-signer"] input[name="key"]').fill(`0x${'22'.repeat(32)}`);
  await page.locator('[data-dialog="new-signer"] button[type="submit"]').click();
  await page.locator('tr[data-signer="console-signer"]').waitFor();
  assert.equal(await page.locator('[data-dialog]').count(), 0);
  assert.equal(
    await page
      .locator('main')
      .innerText()
      .then((t) => t.includes('22'.repeat(32))),
    false,
    'the key is not shown',
  );
  await audit(page, 'signers');
  await shot(page, 'test-signers');
});

test('a relayer is created from the overview (a refusal first, in the API words), then edited, paused and resumed', async () => {
  await page.goto(`${s.url}/console#/overview`);
  await page.locator('button[data-action="new-relayer"]').click();
  const dialog = page.locator('[data-dialog="new-relayer"]');
  await dialog.locator('input[name="id"]').fill('console-made');
  await dialog.locator('input[name="name"]').fill('Made in the console');
  await dialog.locator('select[name="network"] option[value="evm:devnet"]').waitFor({ state: 'attached' });
  await dialog.locator('select[name="network"]').selectOption('evm:devnet');
  await dialog.locator('select[name="signer_id"]').selectOption('dev-evm-signer');
  await audit(page, 'new-relayer-dialog');
  await dialog.locator('button[type="submit"]').click();
  // The signer already serves sepolia-example on that network: the API refuses, and its reason is what is shown.
  await dialogError('new-relayer').waitFor();
  assert.match(
    await dialogError('new-relayer').innerText(),
    /signer 'dev-evm-signer' is already in use by relayer 'sepolia-example'/,
  );
  await dialog.locator('select[name="signer_id"]').selectOption('console-signer');
  await dialog.locator('textarea[name="policies"]').fill('{"min_balance": 0}');
  await dialog.locator('button[type="submit"]').click();
  await page.locator('tr[data-relayer="console-made"]').waitFor();
  const made = (await s.request('GET', '/api/v1/relayers/console-made')).body.data;
  assert.equal(made.signer_id, 'console-signer');
  assert.deepEqual(made.policies, { min_balance: 0 });

  const row = page.locator('tr[data-relayer="console-made"]');
  await row.locator('button[data-action="edit"]').click();
  const edit = page.locator('[data-dialog="edit-relayer"]');
  await edit.locator('input[name="name"]').fill('Renamed in the console');
  await edit.locator('select[name="notification_id"] option[value="live-hook"]').waitFor({ state: 'attached' });
  await edit.locator('select[name="notification_id"]').selectOption('live-hook');
  await edit.locator('textarea[name="policies"]').fill('{"min_balance": 1000}');
  await audit(page, 'edit-relayer-dialog');
  await edit.locator('button[type="submit"]').click();
  await row.locator('text=Renamed in the console').waitFor();
  const edited = (await s.request('GET', '/api/v1/relayers/console-made')).body.data;
  assert.equal(edited.notification_id, 'live-hook');
  assert.deepEqual(edited.policies, { min_balance: 1000 });

  // Pause and resume with the keyboard only: focus the button, press Enter.
  await row.locator('button[data-action="pause"]').focus();
  await page.keyboard.press('Enter');
  await row.locator('button[data-action="resume"]').waitFor();
  assert.equal((await s.request('GET', '/api/v1/relayers/console-made')).body.data.paused, true);
  await row.locator('.badge', { hasText: 'paused' }).waitFor();
  await row.locator('button[data-action="resume"]').focus();
  await page.keyboard.press('Enter');
  await row.locator('button[data-action="pause"]').waitFor();
  assert.equal((await s.request('GET', '/api/v1/relayers/console-made')).body.data.paused, false);
});

test('a dead receiver is shown failing with its error class, and no next try is in the past', async () => {
  assert.equal((await s.request('POST', '/api/v1/notifications/dead-hook/test')).status, 201);
  await page.goto(`${s.url}/console#/webhooks`);
  const dead = page.locator('section[data-notification="dead-hook"]');
  await dead.locator('[data-health="failing"]').waitFor();
  assert.equal(await dead.locator('.health').innerText(), 'failing: connection refused');
  const cell = dead.locator('td.last-error').first();
  assert.equal(await cell.innerText(), 'connection refused');
  assert.match((await cell.getAttribute('title')) ?? '', /ECONNREFUSED/, 'the service text stays on hover');
  for (const next of await dead.locator('td.next-try').allInnerTexts()) assert.doesNotMatch(next, /ago/, next);
  await audit(page, 'webhooks');
  await shot(page, 'test-webhooks');
});

test('a webhook notification is created with the keyboard, sent a test event, edited and deleted; a refused delete says why', async () => {
  await page.goto(`${s.url}/console#/webhooks`);
  await page.locator('section[data-notification="live-hook"]').waitFor();
  await page.locator('button[data-action="new-notification"]').focus();
  await page.keyboard.press('Enter');
  const dialog = page.locator('[data-dialog="new-notification"]');
  // The id field has the focus; Tab moves on; Enter submits.
  await dialog.locator('input[name="id"]:focus').waitFor();
  await page.keyboard.type('kb-hook');
  await page.keyboard.press('Tab');
  await page.keyboard.type((await s.request('GET', '/api/v1/notifications/live-hook')).body.data.url);
  await audit(page, 'new-notification-dialog');
  await page.keyboard.press('Enter');
  const section = page.locator('section[data-notification="kb-hook"]');
  await section.waitFor();
  await section.locator('button[data-action="test"]').click();
  await section.locator('tr[data-status="delivered"]', { hasText: 'notification_test' }).waitFor();
  const got = await eventually(() => received.find((r) => r.body.includes('"notification_test"')));
  assert.ok(got, 'the receiver got the test event');
  assert.equal(JSON.parse(got.body).payload.notification_id, 'kb-hook');

  // Edited: a signing key added (the next event is signed with it).
  await section.locator('button[data-action="edit"]').click();
  await page
    .locator('[data-dialog="edit-notification"] input[name="signing_key"]')
    .fill('a-signing-key-of-at-least-32-characters');
  await page.locator('[data-dialog="edit-notification"] button[type="submit"]').click();
  await page.locator('[data-dialog="edit-notification"]').waitFor({ state: 'detached' });
  assert.equal((await s.request('GET', '/api/v1/notifications/kb-hook')).body.data.has_signing_key, true);
  await section.locator('.muted', { hasText: /^signed$/ }).waitFor();

  await section.locator('button[data-action="delete"]').click();
  await page.locator('.modal button[data-confirm]').click();
  await section.waitFor({ state: 'detached' });
  assert.equal((await s.request('GET', '/api/v1/notifications/kb-hook')).status, 404);

  // dead-hook is sepolia-example's notification: the API refuses, and its reason is what the page shows.
  await page.locator('section[data-notification="dead-hook"] button[data-action="delete"]').click();
  await page.locator('.modal button[data-confirm]').click();
  await page.locator('.webhooks > .error').waitFor();
  assert.match(await page.locator('.webhooks > .error').innerText(), /used by relayer\(s\) sepolia-example/);
});

test("a plugin's settings are edited from its page, and its logs are a labelled list of their own", async () => {
  await page.goto(`${s.url}/console#/plugins/echo`);
  await page.locator('button[data-action="settings"]').click();
  const dialog = page.locator('[data-dialog="plugin-settings"]');
  await dialog.locator('input[name="timeout"]').fill('7');
  await dialog.locator('input[name="emit_logs"]').check();
  await audit(page, 'plugin-settings-dialog');
  await dialog.locator('button[type="submit"]').click();
  await page.locator('.plugin-detail .settings', { hasText: 'timeout 7 s' }).waitFor();
  const plugin = (await s.request('GET', '/api/v1/plugins/echo')).body.data;
  assert.equal(plugin.timeout, 7);
  assert.equal(plugin.emit_logs, true);
  await page.locator('button[data-action="call"]').click();
  await page.locator('.call-answer').waitFor();
  const logs = page.locator('.calls .call-logs').first();
  await logs.waitFor();
  assert.match(await logs.locator('h4').innerText(), /^Logs \(1\)$/);
  assert.match(await logs.locator('li').innerText(), /a line the plugin logged/);
  await audit(page, 'plugins');
  await shot(page, 'test-plugins');
});

let madeKey = '';

test('an API key is created with its secret shown once, and another is revoked', async () => {
  const other = await s.request('POST', '/api/v1/api-keys', {
    body: { name: 'to-revoke', permissions: ['relayer:all:read'] },
  });
  await page.goto(`${s.url}/console#/keys`);
  await page.locator(`tr[data-key="${other.body.data.id}"]`).waitFor();
  await page.locator('button[data-action="new-key"]').click();
  const dialog = page.locator('[data-dialog="new-key"]');
  await dialog.locator('input[name="name"]').fill('scoped-ops');
  await dialog
    .locator('textarea[name="permissions"]')
    .fill('relayer:console-made:manage\nnotification:dead-hook:read\nplugin:all:read');
  await dialog.locator('button[type="submit"]').click();
  madeKey = await page.locator('[data-secret]').innerText();
  const me = await fetch(`${s.url}/api/v1/api-keys/me`, { headers: { Authorization: `Bearer ${madeKey}` } });
  assert.equal(me.status, 200, 'the secret shown is the working key');
  await audit(page, 'keys-secret');
  await page.locator('.modal button[data-confirm]').click();
  assert.equal(await page.locator('[data-secret]').count(), 0);
  assert.equal((await page.locator('body').innerText()).includes(madeKey), false, 'shown once only');
  await page.locator(`tr[data-key="${other.body.data.id}"] button[data-action="revoke"]`).click();
  await page.locator('.modal button[data-confirm]').click();
  await page.locator(`tr[data-key="${other.body.data.id}"]`).waitFor({ state: 'detached' });
  assert.equal((await s.request('GET', `/api/v1/api-keys/${other.body.data.id}/permissions`)).status, 404);
  await audit(page, 'keys');
  await shot(page, 'test-keys');
});

test('a scoped key sees only what it may touch and is offered only the actions it may take', async () => {
  const scoped = await b.newPage();
  await signIn(scoped, s.url, madeKey);
  const tabs = await scoped.locator('header nav a').allInnerTexts();
  assert.deepEqual(tabs, ['Overview', 'Transactions', 'Plugins', 'Webhooks']);
  await scoped.locator('tr[data-relayer="console-made"]').waitFor();
  assert.equal(await scoped.locator('tr[data-relayer]').count(), 1, 'its one relayer only');
  assert.equal(await scoped.locator('button[data-action="new-relayer"]').count(), 0);
  await scoped.locator('tr[data-relayer="console-made"] button[data-action="edit"]').click();
  // A change the API refuses: its message, in the dialog.
  await scoped.locator('[data-dialog="edit-relayer"] textarea[name="policies"]').fill('{"min_balance": "lots"}');
  await scoped.locator('[data-dialog="edit-relayer"] button[type="submit"]').click();
  await scoped.locator('[data-dialog="edit-relayer"] .error').waitFor();
  const refused = await s.request('PATCH', '/api/v1/relayers/console-made', {
    body: { policies: { min_balance: 'lots' } },
  });
  assert.equal(await scoped.locator('[data-dialog="edit-relayer"] .error').innerText(), refused.body.error);
  await scoped.keyboard.press('Escape');
  await scoped.locator('[data-dialog]').waitFor({ state: 'detached' });

  await scoped.goto(`${s.url}/console#/webhooks`);
  await scoped.locator('section[data-notification="dead-hook"]').waitFor();
  assert.equal(await scoped.locator('section[data-notification]').count(), 1);
  assert.equal(
    await scoped.locator('button[data-action]').count(),
    0,
    'read only here: no test, delete, retry or create',
  );
  await scoped.goto(`${s.url}/console#/plugins/echo`);
  await scoped.locator('.plugin-detail').waitFor();
  assert.equal(await scoped.locator('button[data-action], textarea[name="params"]').count(), 0, 'no settings, no call');
  await audit(scoped, 'scoped-plugins');
  await scoped.close();
});

test("a signer in use is not deleted (the API's reason shown); its relayer is deleted, then the signer", async () => {
  await page.goto(`${s.url}/console#/signers`);
  await page.locator('tr[data-signer="console-signer"] button[data-action="delete"]').click();
  await page.locator('.modal button[data-confirm]').click();
  await page.locator('.signers > .error').waitFor();
  assert.match(
    await page.locator('.signers > .error').innerText(),
    /Cannot delete signer 'console-signer' because it is being used by 1 relayer\(s\): console-made/,
  );
  await page.goto(`${s.url}/console#/overview`);
  await page.locator('tr[data-relayer="console-made"] button[data-action="delete"]').click();
  await page.locator('.modal button[data-confirm]').click();
  await page.locator('tr[data-relayer="console-made"]').waitFor({ state: 'detached' });
  assert.equal((await s.request('GET', '/api/v1/relayers/console-made')).status, 404);
  await page.goto(`${s.url}/console#/signers`);
  await page.locator('tr[data-signer="console-signer"] button[data-action="delete"]').click();
  await page.locator('.modal button[data-confirm]').click();
  await page.locator('tr[data-signer="console-signer"]').waitFor({ state: 'detached' });
  assert.equal((await s.request('GET', '/api/v1/signers/console-signer')).status, 404);
});

test('the audit ran with axe-core', {
  skip: axeInstalled() ? false : 'axe-core is not installed (node_modules/axe-core)',
}, () => {});

test('no key in any URL or in localStorage, nothing loaded from elsewhere, no script or CSP error', async () => {
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'nothing in localStorage');
  assert.deepEqual(
    await page.evaluate(() => Object.keys(sessionStorage)),
    ['relaybox.apiKey'],
    'the key, in the tab only',
  );
  for (const url of b.requests) {
    assert.ok(url.startsWith(s.url), `foreign request ${url}`);
    assert.ok(!url.includes(API_KEY) && !(madeKey && url.includes(madeKey)), `a key in ${url}`);
  }
  assert.ok(!s.rawLogs().includes(madeKey));
  assert.deepEqual(b.problems, []);
});
