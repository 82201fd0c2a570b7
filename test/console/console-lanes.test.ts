// The console's view of a key pool (issue 44) in a real headless Chromium, against one real service and an anvil:
// a pool relayer's page lists its keys (address, balance in ETH with the wei on hover, pending of its max, state and
// why) and its funding key, and the top-up the funding key sends to a drained key shows up and reaches confirmed
// without a reload. A relayer with one signer shows no keys table.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { API_KEY, build, type TestServer } from '../helper.ts';
import { startAnvil, type TestAnvil } from '../support/anvil.ts';
import { audit, launch, signIn, type Browser } from './browser.ts';

const ETH = 10n ** 18n;
const TARGET = ETH / 2n;
const keyOf = (k: number) => `0x${(0x9004_0000 + k).toString(16).padStart(64, '0')}` as const;
const KEYS = [1, 2, 3, 4].map((k) => ({ key: keyOf(k), address: privateKeyToAccount(keyOf(k)).address }));
const [first, drained, funder, single] = KEYS as [
  (typeof KEYS)[0],
  (typeof KEYS)[0],
  (typeof KEYS)[0],
  (typeof KEYS)[0],
];

let anvil: TestAnvil;
let s: TestServer;
let b: Browser;
let page: Page;

before(async () => {
  anvil = await startAnvil();
  const fund = (address: string, wei: bigint) => anvil.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
  await fund(first.address, ETH);
  await fund(drained.address, 0n);
  await fund(funder.address, 10n * ETH);
  await fund(single.address, ETH);
  s = await build(undefined, {
    config: {
      networks: [anvil.network('devnet')],
      signers: KEYS.map((k, i) => ({ id: `key-${i}`, type: 'local', development: true, private_key: k.key })),
      relayers: [
        {
          id: 'pool',
          name: 'pool',
          network: 'devnet',
          signer_ids: ['key-0', 'key-1'],
          funding_signer_id: 'key-2',
          policies: { lane_min_balance: (ETH / 10n).toString(), lane_target_balance: TARGET.toString() },
        },
        { id: 'single', name: 'single', network: 'devnet', signer_id: 'key-3' },
      ],
      notifications: [],
      plugins: [],
    } as never,
  });
  b = await launch();
  page = b.page;
});

after(async () => {
  await b?.close();
  await s?.close();
  await anvil?.stop();
});

test("a pool relayer's page lists its keys and funding key, and the top-up to a drained key reaches confirmed", async () => {
  await signIn(page, s.url, API_KEY);
  await page.goto(`${s.url}/console#/transactions/pool`);
  const lanes = page.locator('section.lanes');
  await lanes.waitFor();
  const row = (address: string) => lanes.locator(`tr[data-lane="${address}"]`);
  await row(first.address).waitFor();
  assert.match(await row(first.address).innerText(), /first key · key-0/);
  assert.match(await row(funder.address).innerText(), /funding key · key-2/);
  assert.match(await row(first.address).locator('td.balance').innerText(), /^1 ETH/);
  assert.equal(await row(first.address).locator('.amount').getAttribute('title'), `${ETH} wei`, 'the wei on hover');
  assert.match(await row(first.address).locator('td.pending').innerText(), /^\d+ \/ 16$/);
  assert.equal(await row(first.address).locator('td.state .badge').innerText(), 'active');

  // The drained key's top-up is listed, and reaches confirmed on the page; the key is back with the target.
  const topUp = lanes.locator('.top-ups li[data-top-up]');
  await topUp.waitFor();
  assert.match(await topUp.innerText(), /^top-up .* to 0x.*: 0\.5 ETH/);
  await lanes.locator('.top-ups li[data-status="confirmed"]').waitFor();
  await lanes.locator(`tr[data-lane="${drained.address}"][data-state="active"]`).waitFor();
  await row(drained.address).locator('td.balance', { hasText: '0.5 ETH' }).waitFor();
  await page.locator('tr[data-tx] .badge.top-up').first().waitFor();
  await audit(page, 'pool-lanes');
  assert.deepEqual(b.problems, []);
});

test('a relayer with one signer shows no keys', async () => {
  // The relayer's record is read: once it is answered, there is still no keys table.
  const read = page.waitForResponse((r) => r.url().endsWith('/api/v1/relayers/single'));
  await page.goto(`${s.url}/console#/transactions/single`);
  await page.locator('.transactions .live').waitFor();
  await read;
  assert.equal(await page.locator('section.lanes').count(), 0);
});
