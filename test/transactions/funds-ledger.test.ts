// Issue 39: a relayer's funds as a ledger, on a real anvil, on SQLite and on PostgreSQL. Each unmined send holds its
// worst case (value + gas_limit × max fee); a send is accepted only when the balance, less what is held and less
// min_balance, covers its own. The two red-team reproductions (min_balance over-promised by three sends; four sends of
// 0.003 ETH from 0.008 ETH all accepted), the release once mined, a replacement raising the hold, and two instances
// on one PostgreSQL database that cannot together over-promise.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { build, type TestServer } from '../helper.ts';
import { startAnvil } from '../support/anvil.ts';
import { createTestDatabase, postgresReachable } from '../support/postgres.ts';
import { waitFor } from './lifecycle/support.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const pgSkip = (await postgresReachable()) ? false : 'no PostgreSQL at 127.0.0.1:5432';

const MILLI = 10n ** 15n; // 0.001 ETH
const GAS_PRICE = 1_000_000_000n;
const GAS = 21_000n;
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const RELAYER = 'funded';
const path = (id = '') => `/api/v1/relayers/${RELAYER}/transactions/${id}`;
const send = (value: bigint) => ({
  to: TO,
  value: Number(value),
  gas_price: Number(GAS_PRICE),
  gas_limit: Number(GAS),
});
const worst = (value: bigint) => value + GAS * GAS_PRICE;

let keys = 0;
/** A key of its own per test (anvil's accounts are shared by the file), funded with `wei` exactly. */
async function fundedKey(wei: bigint): Promise<{ key: `0x${string}`; address: `0x${string}` }> {
  const key = `0x${(0xf00d0000 + ++keys).toString(16).padStart(64, '0')}` as const;
  const address = privateKeyToAccount(key).address;
  await anvil.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
  return { key, address };
}

async function start(
  t: TestContext,
  key: string,
  policies: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<TestServer> {
  return build(t, {
    env,
    config: {
      networks: [anvil.network('anvil')],
      signers: [{ id: 'key', type: 'local', development: true, private_key: key }],
      relayers: [{ id: RELAYER, name: 'funded', network: 'anvil', signer_id: 'key', policies }],
      notifications: [],
      plugins: [],
    },
  });
}

const waitStatus = (s: TestServer, id: string, statuses: string[]) =>
  waitFor(
    async () => (await s.request('GET', path(id))).body.data,
    (tx) => statuses.includes(tx?.status),
    30_000,
    `status ${statuses.join('/')}`,
  );
const balance = async (address: string) => BigInt(await anvil.rpc<string>('eth_getBalance', [address, 'latest']));
const accepted = (answers: Array<{ status: number }>) => answers.filter((r) => r.status === 200).length;

const stores: Array<{ name: string; skip: string | false; env: () => Promise<Record<string, string>> }> = [
  { name: 'SQLite', skip: false, env: async () => ({}) },
  {
    name: 'PostgreSQL',
    skip: pgSkip,
    env: async () => ({ DATABASE_URL: (await createTestDatabase('relaybox_funds')).url }),
  },
];

for (const store of stores) {
  test(`${store.name}: min_balance counts what unmined sends hold: of three 0.002 ETH sends with 0.005 ETH above the minimum, the third is refused`, {
    skip: store.skip,
  }, async (t) => {
    const { key, address } = await fundedKey(8n * MILLI);
    const s = await start(t, key, { min_balance: Number(3n * MILLI) }, await store.env());
    await anvil.setAutomine(false);
    t.after(() => anvil.setAutomine(true));
    const answers = [];
    for (let k = 0; k < 3; k++) answers.push(await s.request('POST', path(), { body: send(2n * MILLI) }));
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 400],
      answers.map((r) => r.text).join('\n'),
    );
    const refused = answers[2]!.body;
    assert.match(
      refused.error,
      new RegExp(
        `^Insufficient balance: Relayer balance ${8n * MILLI} is insufficient to cover ${worst(2n * MILLI)} on top of ${2n * worst(2n * MILLI)} wei reserved by its unmined transactions, with an enforced minimum balance of ${3n * MILLI}: ${3n * worst(2n * MILLI) + 3n * MILLI - 8n * MILLI} wei missing`,
      ),
    );
    assert.equal(refused.message, 'Bad Request');
    // Each accepted send holds its worst case until mined.
    for (const r of answers.slice(0, 2)) assert.equal(r.body.data.funds_reserved, String(worst(2n * MILLI)));
    await anvil.setAutomine(true);
    await anvil.mine();
    for (const r of answers.slice(0, 2)) await waitStatus(s, r.body.data.id, ['mined', 'confirmed']);
    assert.ok((await balance(address)) >= 3n * MILLI, 'the balance stays above min_balance');
  });

  test(`${store.name}: the funds guard counts what unmined sends hold: of four 0.003 ETH sends from 0.008 ETH, two are accepted (sent at once or in turn)`, {
    skip: store.skip,
  }, async (t) => {
    const { key, address } = await fundedKey(8n * MILLI);
    const s = await start(t, key, {}, await store.env());
    await anvil.setAutomine(false);
    t.after(() => anvil.setAutomine(true));
    const together = await Promise.all([0, 1, 2, 3].map(() => s.request('POST', path(), { body: send(3n * MILLI) })));
    assert.equal(accepted(together), 2, together.map((r) => r.text).join('\n'));
    for (const r of together.filter((a) => a.status !== 200)) {
      assert.equal(r.status, 400);
      assert.match(
        r.body.error,
        /^Insufficient balance: Relayer balance \d+ is insufficient to cover \d+ on top of \d+ wei reserved by its unmined transactions: \d+ wei missing/,
      );
    }
    const inTurn = await s.request('POST', path(), { body: send(3n * MILLI) });
    assert.equal(inTurn.status, 400, inTurn.text);
    // Released once mined: the ledger holds nothing, and what the balance has left can be sent again.
    await anvil.setAutomine(true);
    await anvil.mine();
    for (const r of together.filter((a) => a.status === 200))
      await waitStatus(s, r.body.data.id, ['mined', 'confirmed']);
    assert.equal((await s.app.store.repos.transactions.funds(RELAYER)).reserved, 0n);
    const left = await balance(address);
    assert.equal(left, 8n * MILLI - 2n * worst(3n * MILLI), 'gas at 1 gwei: the worst case is the cost');
    const last = await waitFor(
      () => s.request('POST', path(), { body: send(left - GAS * GAS_PRICE) }),
      (r) => r.status === 200,
      20_000,
      'a send of all that is left',
    );
    await waitStatus(s, last.body.data.id, ['mined', 'confirmed']);
    assert.equal(await balance(address), 0n);
  });

  test(`${store.name}: a replacement holds the new worst case, and the ledger follows it to the release`, {
    skip: store.skip,
  }, async (t) => {
    const { key } = await fundedKey(10n * MILLI);
    const s = await start(t, key, {}, await store.env());
    await anvil.setAutomine(false);
    t.after(() => anvil.setAutomine(true));
    const first = await s.request('POST', path(), { body: send(MILLI) });
    assert.equal(first.status, 200, first.text);
    await waitStatus(s, first.body.data.id, ['submitted']);
    const price = 2n * GAS_PRICE;
    const replaced = await s.request('PUT', path(first.body.data.id), {
      body: { ...send(2n * MILLI), gas_price: Number(price) },
    });
    assert.equal(replaced.status, 200, replaced.text);
    const held = 2n * MILLI + GAS * price;
    assert.equal((await s.request('GET', path(first.body.data.id))).body.data.funds_reserved, String(held));
    assert.equal((await s.app.store.repos.transactions.funds(RELAYER)).reserved, held);
    // What is left after that hold: 10 − 2.042 mETH; a send of 8 mETH is refused, one of 7.9 accepted.
    const over = await s.request('POST', path(), { body: send(8n * MILLI) });
    assert.equal(over.status, 400, over.text);
    const fits = await s.request('POST', path(), { body: send((79n * MILLI) / 10n) });
    assert.equal(fits.status, 200, fits.text);
    await anvil.setAutomine(true);
    await anvil.mine();
    for (const id of [first.body.data.id, fits.body.data.id]) await waitStatus(s, id, ['mined', 'confirmed', 'failed']);
    const ledger = await s.app.store.repos.transactions.funds(RELAYER);
    assert.equal(ledger.reserved, 0n);
    assert.equal(ledger.released, held + worst((79n * MILLI) / 10n));
  });
}

test('PostgreSQL: two instances on one database cannot together promise more than the balance', {
  skip: pgSkip,
}, async (t) => {
  const { key, address } = await fundedKey(8n * MILLI);
  const env = await stores[1]!.env();
  const a = await start(t, key, {}, env);
  const b = await start(t, key, {}, env);
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const answers = await Promise.all(
    [a, b, a, b, a, b].map((s) => s.request('POST', path(), { body: send(3n * MILLI) })),
  );
  assert.equal(accepted(answers), 2, answers.map((r) => r.text).join('\n'));
  for (const r of answers.filter((x) => x.status !== 200)) assert.match(r.body.error, /^Insufficient balance: /);
  assert.equal((await a.app.store.repos.transactions.funds(RELAYER)).reserved, 2n * worst(3n * MILLI));
  await anvil.setAutomine(true);
  await anvil.mine();
  for (const r of answers.filter((x) => x.status === 200)) await waitStatus(a, r.body.data.id, ['mined', 'confirmed']);
  assert.equal(await balance(address), 8n * MILLI - 2n * worst(3n * MILLI));
});
