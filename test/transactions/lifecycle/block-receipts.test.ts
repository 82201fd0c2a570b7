// 600 sends mined in one block, more than one check run walks (WINDOW): the runs after the first settle theirs from
// that block's receipts read once and its hash read again (a header), not from one eth_getTransactionReceipt per
// transaction nor from its receipts read again per run. A check run reads the head and the
// nonces at once, so a block can be mined between the two: the races are forced by holding one of the two reads at a
// proxy while the block is mined. Counted by that proxy (test/support/rpc-proxy.ts) in front of a real anvil.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAnvil } from '../../support/anvil.ts';
import { startRpcProxy, type RpcProxy } from '../../support/rpc-proxy.ts';
import { buildOn, TO, txPath, waitFor } from './support.ts';
import { WINDOW } from '../../../src/domain/transactions/evm/check.ts';
import { build, type TestServer } from '../../helper.ts';

const anvil = await startAnvil();
after(() => anvil.stop());
const SENDS = WINDOW * 2 + 88;

async function sendAll(s: TestServer, n: number) {
  const total = async (status: string) =>
    (await s.request('GET', `${txPath()}?status=${status}&per_page=1`)).body.pagination.total_items as number;
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      s.request('POST', txPath(), { body: { to: TO, value: i + 1, speed: 'fast', gas_limit: 21_000 } }),
    ),
  );
  for (const a of answers) assert.equal(a.status, 200, a.text);
  await waitFor(
    () => total('submitted'),
    (k) => k === n,
    60_000,
    'every send in the pool',
  );
  return total;
}

async function relayOnHold(t: Parameters<typeof buildOn>[0]) {
  const proxy = await startRpcProxy(anvil.url);
  after(() => proxy.close());
  await anvil.setAutomine(false);
  t?.after(() => anvil.setAutomine(true));
  const s = await buildOn(t, anvil, { network: { rpc_urls: [{ url: proxy.url, weight: 100 }] } });
  return { proxy, s };
}

/** Mines one block while a check run holds `held` (answered before it: `first`), then lets the run go on. */
async function mineWhileHeld(proxy: RpcProxy, held: string, first: string, firstCalls: number) {
  const before = proxy.answered(first);
  proxy.hold(held);
  await waitFor(
    async () => [proxy.held(), proxy.answered(first) - before],
    ([h, a]) => h! >= 1 && a! >= firstCalls,
    30_000,
    `a run holding ${held}`,
  );
  proxy.asked.clear();
  await anvil.mine(1);
  proxy.release();
}

const lookupsOf = (proxy: RpcProxy) =>
  `${proxy.asked.get('eth_getTransactionReceipt') ?? 0} receipts looked up by hash: ${JSON.stringify([...proxy.asked])}`;

test(`${SENDS} transactions mined in one block are settled with block reads, not a receipt lookup each`, async (t) => {
  const { proxy, s } = await relayOnHold(t);
  const total = await sendAll(s, SENDS);
  proxy.asked.clear();
  await anvil.mine(1);
  await waitFor(
    () => total('confirmed'),
    (n) => n === SENDS,
    60_000,
    'every send confirmed',
  );
  // Three runs at least (WINDOW each); the block's receipts are read by the first (and by a race's re-read at most).
  assert.ok(
    (proxy.asked.get('eth_getBlockReceipts') ?? 0) <= 2,
    `the block's receipts read once, not once per run: ${JSON.stringify([...proxy.asked])}`,
  );
  assert.ok(
    (proxy.asked.get('eth_getBlockByNumber') ?? 0) >= 2,
    `the later runs check the block's hash: ${JSON.stringify([...proxy.asked])}`,
  );
  assert.ok((proxy.asked.get('eth_getTransactionReceipt') ?? 0) <= 16, lookupsOf(proxy));
});

// Each race: the read held while the block is mined, and the read that answered before it (with its call count).
const RACES = [
  // The run's head is the block before; its nonces say the transactions are mined.
  {
    name: 'a block mined after a run read the head, before it read the nonces, is read, not looked up per transaction',
    held: 'eth_getTransactionCount',
    first: 'eth_blockNumber',
    calls: 1,
  },
  // The run's head is the new block, its nonces from before it: it passes the block over.
  {
    name: 'a block mined after a run read the nonces, before it read the head, is read by the next run, not looked up per transaction',
    held: 'eth_blockNumber',
    first: 'eth_getTransactionCount',
    calls: 2,
  },
];

for (const race of RACES) {
  test(race.name, async (t) => {
    const { proxy, s } = await relayOnHold(t);
    const total = await sendAll(s, 40);
    await mineWhileHeld(proxy, race.held, race.first, race.calls);
    await waitFor(
      () => total('confirmed'),
      (n) => n === 40,
      60_000,
      'every send confirmed',
    );
    assert.ok((proxy.asked.get('eth_getTransactionReceipt') ?? 0) <= 2, lookupsOf(proxy));
  });
}

// The later runs take ours from the block read before while the node gives the same hash at its number. A reorg that
// moves one to the next block changes it: the block is read again, the transaction is looked up where it is now, and
// its confirmations count from there (taken from the block remembered, it would be confirmed one block early).
test('a transaction a reorg moves to a later block is confirmed at its new depth, not from the block remembered', async (t) => {
  const proxy = await startRpcProxy(anvil.url);
  after(() => proxy.close());
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  const s = await buildOn(t, anvil, {
    network: { rpc_urls: [{ url: proxy.url, weight: 100 }], required_confirmations: 3 },
  });
  const total = await sendAll(s, 1);
  const [sent] = (await s.request('GET', txPath())).body.data as Array<{ hash: string }>;
  await anvil.mine(2);
  await waitFor(
    () => total('mined'),
    (n) => n === 1,
    30_000,
    'the send seen mined, two blocks deep',
  );
  const raw = await anvil.rpc<string>('eth_getRawTransactionByHash', [sent!.hash]);
  // The two blocks mined again: the first empty, the transaction in the second.
  await anvil.rpc('anvil_reorg', [2, [[raw, 1]]]);
  await anvil.mine(1);
  // Runs after the reorg and the new block: two confirmations of the three required (a confirmed one stops the runs).
  const from = proxy.answered('eth_blockNumber');
  await waitFor(
    async () => [proxy.answered('eth_blockNumber') - from, await total('confirmed')],
    ([runs, done]) => runs! >= 4 || done! > 0,
    30_000,
    'four check runs',
  );
  assert.equal(await total('mined'), 1, 'confirmed from the block it was in before the reorg');
  await anvil.mine(1);
  await waitFor(
    () => total('confirmed'),
    (n) => n === 1,
    30_000,
    'the send confirmed at its new depth',
  );
});

// The relayers of a network share what is read of its blocks: a block holding sends of several relayers is read once
// for all of their checks (each checks its hash), not once per relayer.
test('one block holding the sends of three relayers is read once for the three checks', async (t) => {
  const proxy = await startRpcProxy(anvil.url);
  after(() => proxy.close());
  await anvil.setAutomine(false);
  t.after(() => anvil.setAutomine(true));
  // anvil's default accounts #3 to #5 (funded, publicly known development keys; the other tests use #0 to #2).
  const keys = [
    '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
    '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
    '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  ];
  const s = await build(t, {
    config: {
      networks: [anvil.network('anvil', { rpc_urls: [{ url: proxy.url, weight: 100 }] })],
      signers: keys.map((key, i) => ({ id: `key${i}`, type: 'local', development: true, private_key: key })),
      relayers: keys.map((_, i) => ({ id: `r${i}`, name: `r${i}`, network: 'anvil', signer_id: `key${i}` })),
      notifications: [],
      plugins: [],
    },
  });
  const path = (i: number) => `/api/v1/relayers/r${i}/transactions`;
  const total = async (status: string) => {
    const counts = await Promise.all(
      keys.map(
        async (_, i) =>
          (await s.request('GET', `${path(i)}?status=${status}&per_page=1`)).body.pagination.total_items as number,
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  };
  for (const [i] of keys.entries()) {
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, k) =>
        s.request('POST', path(i), { body: { to: TO, value: k + 1, speed: 'fast', gas_limit: 21_000 } }),
      ),
    );
    for (const a of answers) assert.equal(a.status, 200, a.text);
  }
  await waitFor(
    () => total('submitted'),
    (n) => n === 15,
    60_000,
    'every send in the pool',
  );
  proxy.asked.clear();
  await anvil.mine(1);
  await waitFor(
    () => total('confirmed'),
    (n) => n === 15,
    60_000,
    'every send confirmed',
  );
  assert.ok(
    (proxy.asked.get('eth_getBlockReceipts') ?? 0) <= 2,
    `the block's receipts read once for the three relayers: ${JSON.stringify([...proxy.asked])}`,
  );
});
